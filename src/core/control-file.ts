// A server on the embedded database holds its data directory alone, so the `hone` CLI cannot open
// it while the server runs. The server writes where it listens and a random token into the data
// directory (mode 0600: whoever may read the directory may read the database anyway), and the
// CLI hands its command to the server (POST /internal/control) instead of refusing.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase62 } from "../lib/ids";

const FILE = "control.json";

export type ControlFile = { url: string; token: string; pid: number };

export const newControlToken = () => randomBase62(43);

/** Writes the file; the returned function removes it (at shutdown), if it is still this process's. */
export function writeControlFile(dataDir: string, control: ControlFile): () => void {
  const path = join(dataDir, FILE);
  writeFileSync(path, JSON.stringify(control), { mode: 0o600 });
  return () => {
    try {
      if (readControlFile(dataDir)?.pid === control.pid) rmSync(path);
    } catch {
      // already gone
    }
  };
}

export function readControlFile(dataDir: string): ControlFile | null {
  try {
    const v = JSON.parse(readFileSync(join(dataDir, FILE), "utf8")) as Partial<ControlFile>;
    return typeof v.url === "string" && typeof v.token === "string" && typeof v.pid === "number" ? (v as ControlFile) : null;
  } catch {
    return null;
  }
}
