import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { type TarEntry, tarSize, tarStream } from "../../src/lib/tar";

// The weights download resumes with Range: every byte range of the archive, written alone, is the
// same bytes as that range of the whole archive (headers, file bytes, padding, the end blocks).

function entry(path: string, bytes: number, chunk = 97): TarEntry & { data: Uint8Array<ArrayBuffer> } {
  const data = Uint8Array.from({ length: bytes }, (_, i) => (i * 31 + path.length) % 251);
  return {
    path,
    bytes,
    data,
    async *read(from: number) {
      for (let i = from; i < bytes; i += chunk) yield data.slice(i, Math.min(i + chunk, bytes));
    },
  };
}

async function collect(gen: AsyncGenerator<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of gen) parts.push(p);
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

describe("tar ranges", () => {
  const entries = [entry("m/a.json", 700), entry("m/empty", 0), entry("m/b.bin", 1024), entry("m/c.bin", 5)];
  const mtime = new Date("2026-12-01T00:00:00Z");

  test("the whole archive is tarSize bytes, and tar reads it back", async () => {
    const whole = await collect(tarStream(entries, mtime));
    expect(whole.byteLength).toBe(tarSize(entries));
    const dir = `${process.env.TMPDIR ?? "/tmp"}/hone-tar-${process.pid}`;
    await Bun.write(`${dir}/x.tar`, whole);
    expect(Bun.spawnSync(["tar", "-xf", "x.tar"], { cwd: dir }).exitCode).toBe(0);
    expect(new Uint8Array(await Bun.file(`${dir}/m/a.json`).arrayBuffer())).toEqual(entries[0]!.data);
    expect((await Bun.file(`${dir}/m/empty`).arrayBuffer()).byteLength).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  test("every range across every boundary is that slice of the whole", async () => {
    const whole = await collect(tarStream(entries, mtime));
    const size = whole.byteLength;
    const points = [0, 1, 511, 512, 513, 700, 1211, 1212, 1224, 1535, 1536, 2047, 2048, 2560, 3071, 3072, 3584, size - 1025, size - 1, size - 2];
    for (const start of points) {
      for (const end of points) {
        if (end < start || end >= size) continue;
        const part = await collect(tarStream(entries, mtime, start, end));
        expect(part.byteLength).toBe(end - start + 1);
        expect(part).toEqual(whole.subarray(start, end + 1));
      }
    }
  });
});
