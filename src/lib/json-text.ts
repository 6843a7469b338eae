// The JSON text a value was parsed from, remembered so the value can be written out again (to the
// client, to the call log) without serialising it a second time: the gateway parses every request
// and upstream answer once and would otherwise stringify each of them twice more. Only for values
// nobody mutates after parsing; a copy (spread, map) has no text and is serialised as usual.
//
// The text rides on the value itself, as a hidden (non-enumerable, symbol-keyed) property: JSON,
// spreads and Object.keys do not see it. A WeakMap would do the same, but every garbage collection
// has to walk its entries (one or two per call), which lengthened each pause under load.
const TEXT = Symbol("json text");

/** JSON.parse that remembers the text of the object or array it returns. */
export function parseJsonKeepingText(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (value !== null && typeof value === "object") {
    Object.defineProperty(value, TEXT, { value: text });
  }
  return value;
}

/** The value as JSON text: the text it was parsed from when known, else JSON.stringify. */
export function jsonText(value: unknown): string {
  if (value !== null && typeof value === "object" && Object.hasOwn(value, TEXT)) {
    return (value as { [TEXT]: string })[TEXT];
  }
  return JSON.stringify(value) ?? "null";
}
