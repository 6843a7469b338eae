// The traces page's state in the URL: traces or sessions, and the session shown. No heavy imports:
// the router loads this with the shell.

export type TracesSearch = { view?: "sessions"; session?: string };

export function parseTracesSearch(raw: Record<string, unknown>): TracesSearch {
  const out: TracesSearch = {};
  if (raw.view === "sessions") out.view = "sessions";
  if (typeof raw.session === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(raw.session)) out.session = raw.session;
  return out;
}
