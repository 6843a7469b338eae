import { z } from "zod";
import type { Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { MAX_ID_LENGTH } from "../../core/limits";
import { type AdapterServer, adapterServers, findModelRow } from "../models";
import { verb } from "../verb";

export const ModelServingInput = z.strictObject({ slug: z.string().min(1).max(MAX_ID_LENGTH) });

/** Where a model of Hone's trainers is: who trained it, its weights, and the vLLM servers of its base. */
export type ModelServing = {
  /** The trainer that holds or last held its job (by name). */
  trainedBy: string | null;
  /** adapter (a LoRA adapter, served by vLLM), full (a fully fine-tuned model), or null before it is trained. */
  weights: "adapter" | "full" | null;
  files: { path: string; bytes: number; sha256: string }[];
  /** Whether a fresh report of a vLLM server lists it loaded: hone:<slug> answers through the gateway. */
  served: boolean;
  servers: AdapterServer[];
};

export const modelServing = verb({
  name: "modelServing",
  description: "A model of Hone's trainers: who trained it, its weights' files, and the vLLM servers of its base model with what their sync last reported",
  kind: "query",
  role: "viewer",
  input: ModelServingInput,
  run: async (ctx: Ctx, raw: z.input<typeof ModelServingInput>): Promise<ModelServing> => {
    const { slug } = parseInput(ModelServingInput, raw);
    const row = await findModelRow(ctx, slug);
    if (!row) throw new DomainError("NOT_FOUND", `Model ${slug} not found`);
    if (row.backend !== "trainer") throw new DomainError("CONFLICT", `Model ${slug} was trained on ${row.backend}, which serves it`);
    const files = row.resultFiles ?? [];
    const weights = !files.length ? null : files.some((f) => f.path.startsWith("adapter/")) ? "adapter" : "full";
    const servers = weights === "adapter" ? await adapterServers(ctx, row.id, row.baseModel) : [];
    return { trainedBy: row.leasedBy, weights, files, served: row.status === "DEPLOYED" && servers.some((s) => s.loaded && s.fresh), servers };
  },
});
