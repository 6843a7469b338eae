import { DomainError } from "../../core/errors";
import type { Embedding, EmbeddingList, Usage } from "../../providers";

// Embeddings travel as JSON numbers or as base64 of little-endian float32 (OpenAI's
// `encoding_format: base64`). Hone asks each upstream for what it speaks best and answers each
// client in the encoding it asked for, whatever the upstream (or the cache) holds.

export type EmbeddingEncoding = "float" | "base64";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function toBase64(vector: number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString("base64");
}

function fromBase64(text: string): number[] {
  const bytes = Buffer.from(text, "base64");
  if (!BASE64.test(text) || bytes.length % 4 !== 0) {
    throw new DomainError("UPSTREAM_ERROR", "The provider returned an embedding that is not base64 of float32 values", { upstreamStatus: 502 });
  }
  const out = new Array<number>(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

/** Numbers in a vector, without decoding it. */
function dimensionsOf(e: Embedding): number {
  if (Array.isArray(e.embedding)) return e.embedding.length;
  const s = e.embedding;
  const padding = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  return Math.floor(((s.length * 3) / 4 - padding) / 4);
}

/** The answer with every vector in `encoding`; the same object when nothing needs converting. */
export function encodedAs(list: EmbeddingList, encoding: EmbeddingEncoding): EmbeddingList {
  const wanted = (e: Embedding) => (encoding === "base64" ? typeof e.embedding === "string" : Array.isArray(e.embedding));
  if (list.data.every(wanted)) return list;
  return {
    ...list,
    data: list.data.map((e) => {
      if (wanted(e)) return e;
      return { ...e, embedding: typeof e.embedding === "string" ? fromBase64(e.embedding) : toBase64(e.embedding) };
    }),
  };
}

/** What a log keeps of an answer by default: each vector replaced by its size. */
export function withoutVectors(list: EmbeddingList): EmbeddingList {
  return {
    ...list,
    data: list.data.map((e) => ({ object: "embedding", index: e.index, dimensions: dimensionsOf(e) }) as unknown as Embedding),
  };
}

/** The answer's usage in the shape the log and the price table read (an embedding has no output tokens). */
export function usageOf(list: EmbeddingList): Usage | null {
  const u = list.usage;
  if (!u || typeof u !== "object") return null;
  return u as unknown as Usage;
}
