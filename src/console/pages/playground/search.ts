// The playground's URL: `?fromLog=<logId>` fills it from a logged call, `?model=` sets the first
// model. Plain TypeScript: the router's shell imports this parser.
export type PlaygroundSearch = { fromLog?: string; model?: string };

const text = (v: unknown, max: number) => (typeof v === "string" && v.trim() ? v.trim().slice(0, max) : undefined);

export function parsePlaygroundSearch(s: Record<string, unknown>): PlaygroundSearch {
  const out: PlaygroundSearch = {};
  const fromLog = text(s.fromLog, 100);
  if (fromLog) out.fromLog = fromLog;
  const model = text(s.model, 300);
  if (model) out.model = model;
  return out;
}
