import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import type { Ctx } from "../context";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { artifactDir, leasedRow } from "./internal";
import { ArtifactPath, FileKind } from "./schemas";

export type StoredFile = { path: string; sha256: string; bytes: number };

/** Where a file of a model is kept, and the digest it was uploaded with beside it (`<file>.sha256`). */
const located = (ctx: Ctx, modelId: string, kind: FileKind, path: string) => {
  const file = `${artifactDir(ctx, modelId, kind)}/${path}`;
  return { file, digest: `${file}.sha256` };
};

/**
 * Stores one file a trainer uploads for its leased job, streamed to disk (bounded memory), hashed as
 * it arrives: kept only when its sha256 is the one the trainer named (a partial or corrupted upload
 * leaves nothing), and refused past HONE_MAX_ARTIFACT_FILE_BYTES.
 */
export async function storeTrainingFile(
  ctx: Ctx,
  ref: { id: string; leaseId: string },
  upload: { kind: string; path: string; sha256: string | null; body: ReadableStream<Uint8Array> | null },
): Promise<StoredFile> {
  const row = await leasedRow(ctx, ref);
  const kind = parseInput(FileKind, upload.kind);
  const path = parseInput(ArtifactPath, upload.path);
  if (!upload.sha256 || !/^[0-9a-f]{64}$/.test(upload.sha256)) {
    throw new DomainError("VALIDATION", "The upload names no sha256: send the header x-hone-sha256 (64 lowercase hex digits)", {
      issues: [{ message: "x-hone-sha256 is required", path: ["x-hone-sha256"] }],
    });
  }
  const { file, digest } = located(ctx, row.id, kind, path);
  mkdirSync(dirname(file), { recursive: true });
  const part = `${file}.part-${crypto.randomUUID()}`;
  const max = ctx.deps.config.trainers.maxFileBytes;
  const hasher = new Bun.CryptoHasher("sha256");
  let bytes = 0;
  const out = await open(part, "w");
  const reader = upload.body?.getReader();
  try {
    if (reader) {
      // A trainer that stops sending mid-file is cut off after HONE_BODY_IDLE_TIMEOUT_MS of silence
      // (the half-written file is removed below), rather than holding the upload open forever.
      const idleMs = ctx.deps.config.bodyIdleTimeoutMs;
      for (;;) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new DomainError("REQUEST_TIMEOUT", `${path}: nothing arrived for ${idleMs} ms; upload it again`)), idleMs);
        });
        const next = await Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
        if (next.done) break;
        const chunk = next.value;
        bytes += chunk.byteLength;
        if (bytes > max) throw new DomainError("PAYLOAD_TOO_LARGE", `${path} is larger than HONE_MAX_ARTIFACT_FILE_BYTES (${max} bytes)`);
        hasher.update(chunk);
        await out.write(chunk);
      }
    }
    await out.sync();
  } catch (err) {
    await reader?.cancel().catch(() => undefined);
    await out.close();
    rmSync(part, { force: true });
    throw err;
  }
  await out.close();
  const sha256 = hasher.digest("hex");
  if (sha256 !== upload.sha256) {
    rmSync(part, { force: true });
    throw new DomainError("VALIDATION", `${path} arrived with sha256 ${sha256}, not the ${upload.sha256} named: nothing was kept (upload it again)`, {
      issues: [{ message: "the file's sha256 differs from x-hone-sha256", path: ["x-hone-sha256"] }],
    });
  }
  renameSync(part, file);
  writeFileSync(digest, `${sha256} ${bytes}\n`);
  return { path, sha256, bytes };
}

/** Checks that every file a trainer lists was uploaded whole, with that digest and size. */
export function requireUploaded(ctx: Ctx, modelId: string, kind: FileKind, files: readonly StoredFile[]): void {
  for (const f of files) {
    const { file, digest } = located(ctx, modelId, kind, f.path);
    const kept = existsSync(digest) ? readFileSync(digest, "utf8").trim().split(" ") : null;
    if (!kept || !existsSync(file) || kept[0] !== f.sha256 || Number(kept[1]) !== f.bytes || statSync(file).size !== f.bytes) {
      throw new DomainError("VALIDATION", `${f.path} was not uploaded as listed (${kind} file, sha256 ${f.sha256}, ${f.bytes} bytes): upload it first`, {
        issues: [{ message: `${f.path} is not uploaded with that sha256 and size`, path: ["files"] }],
      });
    }
  }
}

/** A checkpoint file back, for the trainer that resumes the job. */
export async function readCheckpointFile(
  ctx: Ctx,
  ref: { id: string; leaseId: string },
  rawPath: string,
): Promise<{ stream: ReadableStream; bytes: number; sha256: string }> {
  const row = await leasedRow(ctx, ref);
  const path = parseInput(ArtifactPath, rawPath);
  const listed = row.resumeFrom?.files.find((f) => f.path === path);
  const { file } = located(ctx, row.id, "checkpoint", path);
  if (!listed || !existsSync(file)) throw notFound("Checkpoint file", path);
  return { stream: createReadStream(file) as unknown as ReadableStream, bytes: listed.bytes, sha256: listed.sha256 };
}

/** Removes a model's uploaded files (a deleted model, or checkpoints once its result is in). */
export function removeTrainingFiles(ctx: Ctx, modelId: string, kind?: FileKind): void {
  rmSync(kind ? artifactDir(ctx, modelId, kind) : `${ctx.deps.config.trainers.artifactsDir}/${ctx.projectId}/${modelId}`, { recursive: true, force: true });
}
