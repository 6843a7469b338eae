import { resolve } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = resolve(import.meta.dir, "../..");

/** Only what a process needs; the test runner's own DATABASE_URL must not leak in. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    HONE_LOG_LEVEL: "info",
    // The tests of OpenAI fine-tuning go on past OpenAI's end date; the date's own test uses the default.
    HONE_OPENAI_FINE_TUNING_ENDS_ON: "9999-12-31",
    ...extra,
  };
}

export type RunningServer = {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  /** Everything printed to stdout so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
};

const live = new Set<Subprocess>();

/** Kills every server this file started that is still running (for afterAll, after a timeout). */
export function killStartedServers(): void {
  for (const p of live) p.kill("SIGKILL");
  live.clear();
}

/** Starts `bun src/index.ts` on a free port and waits for its "listening" line. */
export async function startServer(env: Record<string, string>, timeoutMs = 30_000): Promise<RunningServer> {
  const proc = Bun.spawn(["bun", "src/index.ts"], {
    cwd: ROOT,
    env: baseEnv({ PORT: "0", ...env }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  live.add(proc);
  void proc.exited.then(() => live.delete(proc));
  let out = "";
  const decoder = new TextDecoder();
  // A server that never came up must not outlive the test (it would hold the data directory).
  const fail = (err: Error) => {
    proc.kill("SIGKILL");
    return err;
  };
  const reader = proc.stdout.getReader();
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(fail(new Error(`server did not start in ${timeoutMs} ms:\n${out}`))), timeoutMs);
    (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        out += decoder.decode(value);
        const m = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]!);
          break;
        }
      }
      if (!/"msg":"listening"/.test(out)) {
        clearTimeout(timer);
        reject(fail(new Error(`server exited before listening:\n${out}\n${await new Response(proc.stderr).text()}`)));
      }
    })();
  });
  // Keep draining stdout so the process never blocks on a full pipe.
  (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out += decoder.decode(value);
    }
  })();
  return {
    proc,
    url,
    output: () => out,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

export async function runCli(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn(["bun", "src/cli.ts", ...args], { cwd: ROOT, env: baseEnv(env), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
