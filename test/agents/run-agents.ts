// Spawn the real Claude Code / Codex CLIs, fully offline and non-interactive,
// pointed at an arbitrary base URL (a fake upstream or a gateway).
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";

const KIT = import.meta.dir;

export const CLAUDE_BIN = (() => {
  // npm's postinstall (install.cjs) hard-links the native binary over bin/claude.exe.
  // If the postinstall was skipped, bin/claude.exe is a placeholder: use the platform
  // package binary directly, or fall back to `node cli-wrapper.cjs`.
  const platformBin = join(KIT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
  if (existsSync(platformBin)) return [platformBin];
  return ["node", join(KIT, "node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs")];
})();

export const CODEX_BIN = ["node", join(KIT, "node_modules/@openai/codex/bin/codex.js")];

export interface RunOptions {
  baseUrl: string;
  apiKey: string;
  cwd: string;
  prompt: string;
  timeoutMs?: number;
  model?: string;
  /** extra CLI args appended before the prompt */
  extraArgs?: string[];
  /** extra environment */
  env?: Record<string, string>;
  /** keep the temporary HOME / CODEX_HOME (for debugging) */
  keepHome?: boolean;
}

export interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  home: string;
}

/** Minimal environment: nothing from the machine's HOME, proxies or provider keys leaks in. */
function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    USER: process.env.USER ?? "root",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_STATE_HOME: join(home, ".local/state"),
  };
}

async function run(cmd: string[], cwd: string, env: Record<string, string>, timeoutMs: number, home: string): Promise<RunResult> {
  const t0 = Date.now();
  const proc = Bun.spawn(cmd, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      proc.kill("SIGKILL");
    } catch {}
  }, timeoutMs);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const exitCode = await proc.exited;
  clearTimeout(timer);
  return { exitCode: timedOut ? null : exitCode, stdout, stderr, timedOut, durationMs: Date.now() - t0, home };
}

function makeHome(prefix: string): string {
  // Codex refuses to create helper binaries when CODEX_HOME is under /tmp (only a warning);
  // keep temp homes under the kit directory instead.
  const root = join(KIT, ".tmp");
  mkdirSync(root, { recursive: true });
  return mkdtempSync(join(root, prefix));
}

export async function runClaudeCode(o: RunOptions): Promise<RunResult> {
  const home = makeHome("cc-home-");
  const configDir = join(home, ".claude");
  mkdirSync(configDir, { recursive: true });
  const env: Record<string, string> = {
    ...baseEnv(home),
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: o.baseUrl.replace(/\/$/, ""),
    ANTHROPIC_API_KEY: o.apiKey,
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    // --dangerously-skip-permissions is refused when running as root unless IS_SANDBOX=1
    IS_SANDBOX: "1",
    ...(o.env ?? {}),
  };
  const args = [
    ...CLAUDE_BIN,
    "-p",
    "--output-format",
    "text",
    "--dangerously-skip-permissions",
    ...(o.model ? ["--model", o.model] : []),
    ...(o.extraArgs ?? []),
    o.prompt,
  ];
  const res = await run(args, o.cwd, env, o.timeoutMs ?? 120_000, home);
  if (!o.keepHome) rmSync(home, { recursive: true, force: true });
  return res;
}

export async function runCodex(o: RunOptions): Promise<RunResult> {
  const home = makeHome("codex-home-");
  const codexHome = join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const model = o.model ?? "gpt-5.5";
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      `model = ${JSON.stringify(model)}`,
      `model_provider = "hone"`,
      `approval_policy = "never"`,
      `sandbox_mode = "danger-full-access"`,
      // cut background traffic (update check, analytics, feedback, apps/plugins/connectors);
      // all are accepted by --strict-config in 0.171.0
      `check_for_update_on_startup = false`,
      ``,
      `[analytics]`,
      `enabled = false`,
      ``,
      `[feedback]`,
      `enabled = false`,
      ``,
      `[features]`,
      `apps = false`,
      `plugins = false`,
      `connectors = false`,
      ``,
      `[model_providers.hone]`,
      `name = "Hone test"`,
      `base_url = ${JSON.stringify(o.baseUrl.replace(/\/$/, ""))}`,
      `env_key = "HONE_TEST_KEY"`,
      `wire_api = "responses"`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
      `stream_idle_timeout_ms = 60000`,
      ``,
    ].join("\n"),
  );
  const env: Record<string, string> = {
    ...baseEnv(home),
    CODEX_HOME: codexHome,
    HONE_TEST_KEY: o.apiKey,
    RUST_LOG: process.env.RUST_LOG ?? "error",
    ...(o.env ?? {}),
  };
  const args = [
    ...CODEX_BIN,
    "exec",
    "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox",
    "--strict-config",
    "-C",
    o.cwd,
    ...(o.extraArgs ?? []),
    o.prompt,
  ];
  const res = await run(args, o.cwd, env, o.timeoutMs ?? 120_000, home);
  if (!o.keepHome) rmSync(home, { recursive: true, force: true });
  return res;
}
