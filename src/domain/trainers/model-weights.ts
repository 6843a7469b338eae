import { createReadStream } from "node:fs";
import type { Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { backendTarget, findModelRow, type ModelRow, ModelSlugInput } from "../models";
import { getProviderApiKey } from "../projects";
import { artifactDir } from "./internal";
import { ArtifactPath } from "./schemas";

/** A file of a model's weights; its sha256 when Hone kept it (a backend's files come without one). */
export type WeightsFile = { path: string; bytes: number; sha256: string | null; read(from: number): AsyncIterable<Uint8Array> };

/** What GET /api/v1/models/{slug}/weights sends: files as a tar (resumable), or a backend's own archive as it comes. */
export type ModelWeights =
  | { kind: "files"; slug: string; files: WeightsFile[]; createdAt: Date }
  | { kind: "archive"; slug: string; body: ReadableStream<Uint8Array>; bytes: number | null; contentType: string; extension: string };

/**
 * The weights of a model: as Hone's trainer uploaded them (an adapter, or a merged model), each file
 * with its sha256; or, for a managed backend that lets them go, its adapter fetched from it
 * (Together: its compressed archive; Fireworks: its files). OpenAI keeps its fine-tunes' weights.
 */
export async function modelWeights(ctx: Ctx, raw: ModelSlugInput): Promise<ModelWeights> {
  const { slug } = parseInput(ModelSlugInput, raw);
  const row = await findModelRow(ctx, slug);
  if (!row) throw new DomainError("NOT_FOUND", `Model ${slug} not found`);
  if (row.backend !== "trainer") return backendWeights(ctx, row);
  if (row.status !== "DEPLOYED" || !row.resultFiles) throw new DomainError("CONFLICT", `Model ${slug} has no weights yet (status ${row.status})`);
  const dir = artifactDir(ctx, row.id, "result");
  return {
    kind: "files",
    slug: row.slug,
    createdAt: row.createdAt,
    files: row.resultFiles.map((f) => ({
      ...f,
      read: (from: number) => createReadStream(`${dir}/${f.path}`, { start: from, highWaterMark: 1024 * 1024 }) as AsyncIterable<Uint8Array>,
    })),
  };
}

async function backendWeights(ctx: Ctx, row: ModelRow): Promise<ModelWeights> {
  const backend = row.backend as "openai" | "together" | "fireworks";
  if (row.status !== "DEPLOYED" || !row.upstreamJobId || !row.upstreamModelId) {
    throw new DomainError("CONFLICT", `Model ${row.slug} has no weights yet (status ${row.status})`);
  }
  const trainer = ctx.deps.trainers(backendTarget(ctx.deps.config, { ...row, backend }, await getProviderApiKey(ctx, backend)));
  if (!trainer.downloadWeights) {
    throw new DomainError(
      "CONFLICT",
      `Model ${row.slug} was trained on ${backend}, which keeps the weights of its fine-tunes: train on an open model to own them`,
    );
  }
  const got = await trainer.downloadWeights({ jobId: row.upstreamJobId, modelId: row.upstreamModelId });
  if (got.kind === "archive") return { ...got, slug: row.slug };
  // A backend's file names go into a tar the user unpacks: relative paths only.
  for (const f of got.files) {
    if (!ArtifactPath.safeParse(f.path).success)
      throw new DomainError("UPSTREAM_ERROR", `${backend} named a file ${JSON.stringify(f.path.slice(0, 100))} that is not a plain relative path`, {
        upstreamStatus: 502,
      });
  }
  return { kind: "files", slug: row.slug, createdAt: row.createdAt, files: got.files.map((f) => ({ ...f, sha256: null })) };
}
