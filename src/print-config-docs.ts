// Writes the configuration table of docs/operations.md from the config schema (`bun run docs:config`); a test fails on drift.
import { resolve } from "node:path";
import { EnvSchema, type EnvVariable } from "./core/config";

export const CONFIG_DOCS_PATH = resolve(import.meta.dir, "../docs/operations.md");
export const TABLE_START = "<!-- config-table:start -->";
export const TABLE_END = "<!-- config-table:end -->";

export type EnvVariableDoc = { name: EnvVariable; description: string | undefined; default: string };

const MIB = 1024 * 1024;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A readable size or duration beside a large default, when it comes out whole: 10485760 (10 MiB), 43200000 (12 h). */
function gloss(name: string, value: number): string {
  if (name.endsWith("_BYTES")) {
    if (value >= 1024 * MIB && value % (1024 * MIB) === 0) return ` (${value / (1024 * MIB)} GiB)`;
    if (value >= MIB && value % MIB === 0) return ` (${value / MIB} MiB)`;
  }
  if (name.endsWith("_MS")) {
    if (value >= DAY && value % DAY === 0) return ` (${value / DAY} day${value === DAY ? "" : "s"})`;
    if (value >= HOUR && value % HOUR === 0) return ` (${value / HOUR} h)`;
    if (value >= 60_000 && value % 60_000 === 0) return ` (${value / 60_000} min)`;
  }
  return "";
}

/** The default as the table shows it: the prose of `docDefault` where the schema has it, else the value an unset variable parses to. */
function renderDefault(name: EnvVariable): string {
  const field = EnvSchema.shape[name];
  const prose = field.meta()?.docDefault;
  if (typeof prose === "string") return prose;
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return "**required**";
  const value = parsed.data as unknown;
  if (value === undefined) return "unset";
  if (value === "") return "empty";
  if (typeof value === "number") return `\`${value}\`${gloss(name, value)}`;
  return `\`${String(value)}\``;
}

/** Every variable of the schema, in its order, with its description and default. */
export function envVariableDocs(): EnvVariableDoc[] {
  return (Object.keys(EnvSchema.shape) as EnvVariable[]).map((name) => ({
    name,
    description: EnvSchema.shape[name].description,
    default: renderDefault(name),
  }));
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The markdown table: one row per variable. */
export function renderConfigTable(docs: EnvVariableDoc[] = envVariableDocs()): string {
  const rows = docs.map((d) => `| \`${d.name}\` | ${cell(d.description ?? "")} | ${cell(d.default)} |`);
  return ["| variable | meaning | default |", "|---|---|---|", ...rows].join("\n");
}

/** The document with the table between the markers replaced (the markers and everything around them kept). */
export function spliceConfigTable(doc: string, table: string = renderConfigTable()): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/operations.md lacks the markers ${TABLE_START} and ${TABLE_END}`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${table}\n${doc.slice(end)}`;
}

if (import.meta.main) {
  const doc = await Bun.file(CONFIG_DOCS_PATH).text();
  await Bun.write(CONFIG_DOCS_PATH, spliceConfigTable(doc));
  console.log(`wrote ${CONFIG_DOCS_PATH} (${Object.keys(EnvSchema.shape).length} variables)`);
}
