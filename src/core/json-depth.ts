// How deep a JSON value nests, measured without recursion. Parsing deep JSON is fine (the parser
// is iterative) but everything after it is not: JSON.stringify, canonical keys, converters and
// validators recurse, and a 100,000-deep array sent in a report overflowed the stack. Inputs are
// refused past HONE_MAX_JSON_DEPTH at the door, so nothing downstream meets deeper data.
import { DomainError } from "./errors";

const SPECIAL = /[{}[\]"]/g;

/** True when the JSON text nests arrays and objects deeper than `max`. Linear; strings are skipped natively. */
export function jsonTextTooDeep(text: string, max: number): boolean {
  // Fewer opening brackets than the limit cannot nest deeper than it: most texts stop here.
  let opens = 0;
  for (let i = text.indexOf("{"); i >= 0 && opens <= max; i = text.indexOf("{", i + 1)) opens++;
  for (let i = text.indexOf("["); i >= 0 && opens <= max; i = text.indexOf("[", i + 1)) opens++;
  if (opens <= max) return false;
  const re = new RegExp(SPECIAL);
  let depth = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const c = text.charCodeAt(m.index);
    if (c === 34) {
      // A string: jump to its closing quote (one not escaped by an odd run of backslashes).
      let end = m.index;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return false; // not JSON; the parser says so
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
      }
      re.lastIndex = end + 1;
    } else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else depth--;
  }
  return false;
}

/** True when a parsed value nests arrays and objects deeper than `max` (an explicit stack, no recursion). */
export function valueTooDeep(value: unknown, max: number): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as object);
    for (const c of children) if (c !== null && typeof c === "object") stack.push([c, depth + 1]);
  }
  return false;
}

/** The 400 for JSON nested past the limit, naming it. */
export function tooDeepError(max: number, what = "The JSON"): DomainError {
  const message = `${what} nests arrays or objects more than ${max} levels deep, the limit (HONE_MAX_JSON_DEPTH)`;
  return new DomainError("VALIDATION", message, { issues: [{ message }] });
}
