// A tar archive (POSIX ustar) written as a stream, a file at a time: for the weights a model's
// trainer uploaded (GET /api/v1/models/{slug}/weights). Only what that needs: regular files, paths
// up to 255 bytes (split into ustar's prefix and name), sizes below 8 GiB a file. A byte range of
// the archive can be written alone (a download resumed with Range): the layout is fixed by the
// entries' sizes, so each file is read only from where the range needs it.

/** `read(from)` reads the file from byte `from` on. */
export type TarEntry = { path: string; bytes: number; read(from: number): AsyncIterable<Uint8Array> };

const BLOCK = 512;
const encoder = new TextEncoder();

function field(block: Uint8Array, offset: number, length: number, value: string): void {
  block.set(encoder.encode(value).subarray(0, length), offset);
}

const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;

/** The 512-byte ustar header of one regular file. */
export function tarHeader(path: string, bytes: number, mtime: Date): Uint8Array {
  const name = encoder.encode(path);
  if (name.length > 255) throw new Error(`a tar path is at most 255 bytes: ${path}`);
  if (bytes >= 8 * 1024 ** 3) throw new Error(`a tar file is below 8 GiB: ${path}`);
  let prefix = "";
  let rest = path;
  if (name.length > 100) {
    const cut = path.lastIndexOf("/", 155);
    if (cut <= 0 || encoder.encode(path.slice(cut + 1)).length > 100) throw new Error(`a tar path cannot be split into ustar's prefix and name: ${path}`);
    prefix = path.slice(0, cut);
    rest = path.slice(cut + 1);
  }
  const h = new Uint8Array(BLOCK);
  field(h, 0, 100, rest);
  field(h, 100, 8, octal(0o644, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(bytes, 12));
  field(h, 136, 12, octal(Math.floor(mtime.getTime() / 1000), 12));
  field(h, 148, 8, "        ");
  field(h, 156, 1, "0");
  field(h, 257, 6, "ustar\0");
  field(h, 263, 2, "00");
  field(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  field(h, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

/**
 * The archive's bytes from `start` to `end` (inclusive; the whole archive by default), in order:
 * each file's header, its bytes and padding to the block, then two empty blocks.
 */
export async function* tarStream(entries: readonly TarEntry[], mtime: Date, start = 0, end = tarSize(entries) - 1): AsyncGenerator<Uint8Array> {
  let at = 0; // the archive offset of the next part
  /** The part of a block-aligned piece [at, at + length) that falls in the range, or null. */
  const clip = (piece: Uint8Array): Uint8Array | null => {
    const from = Math.max(start - at, 0);
    const to = Math.min(end + 1 - at, piece.byteLength);
    at += piece.byteLength;
    return to > from ? piece.subarray(from, to) : null;
  };
  for (const e of entries) {
    if (at > end) return;
    const header = clip(tarHeader(e.path, e.bytes, mtime));
    if (header) yield header;
    const padded = Math.ceil(e.bytes / BLOCK) * BLOCK;
    if (at + padded <= start) {
      at += padded;
      continue;
    }
    const skip = Math.max(start - at, 0);
    if (skip < e.bytes && at + skip <= end) {
      let sent = skip;
      for await (const chunk of e.read(skip)) {
        sent += chunk.byteLength;
        if (sent > e.bytes) throw new Error(`${e.path} is longer than the ${e.bytes} bytes it was stored with`);
        const cut = Math.min(chunk.byteLength, end + 1 - (at + sent - chunk.byteLength));
        if (cut > 0) yield cut < chunk.byteLength ? chunk.subarray(0, cut) : chunk;
        if (at + sent > end) break;
      }
      if (sent < e.bytes && at + sent <= end) throw new Error(`${e.path} is shorter than the ${e.bytes} bytes it was stored with`);
    }
    at += e.bytes;
    const pad = clip(new Uint8Array(padded - e.bytes));
    if (pad?.byteLength) yield pad;
  }
  const tail = clip(new Uint8Array(2 * BLOCK));
  if (tail) yield tail;
}

/** The archive's size in bytes, for Content-Length. */
export const tarSize = (entries: readonly { bytes: number }[]) => entries.reduce((s, e) => s + BLOCK + Math.ceil(e.bytes / BLOCK) * BLOCK, 0) + 2 * BLOCK;
