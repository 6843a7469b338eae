import { createReadStream } from "node:fs";
import type { Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { findModelRow, ModelSlugInput } from "../models";
import { artifactDir } from "./internal";

export type WeightsFile = { path: string; bytes: number; sha256: string; read(from: number): AsyncIterable<Uint8Array> };

/**
 * The weights of a model trained by Hone's trainers, as the trainer uploaded them (an adapter, or a
 * merged model), each file with its sha256: what GET /api/v1/models/{slug}/weights sends as a tar.
 */
export async function modelWeights(ctx: Ctx, raw: ModelSlugInput): Promise<{ slug: string; files: WeightsFile[]; createdAt: Date }> {
  const { slug } = parseInput(ModelSlugInput, raw);
  const row = await findModelRow(ctx, slug);
  if (!row) throw new DomainError("NOT_FOUND", `Model ${slug} not found`);
  if (row.backend !== "trainer") {
    throw new DomainError(
      "CONFLICT",
      `Model ${slug} was trained on ${row.backend}: its weights stay with that backend; Hone keeps the weights of models trained by its own trainers`,
    );
  }
  if (row.status !== "DEPLOYED" || !row.resultFiles) throw new DomainError("CONFLICT", `Model ${slug} has no weights yet (status ${row.status})`);
  const dir = artifactDir(ctx, row.id, "result");
  return {
    slug: row.slug,
    createdAt: row.createdAt,
    files: row.resultFiles.map((f) => ({
      ...f,
      read: (from: number) => createReadStream(`${dir}/${f.path}`, { start: from, highWaterMark: 1024 * 1024 }) as AsyncIterable<Uint8Array>,
    })),
  };
}
