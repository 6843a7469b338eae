import { describe, expect, test } from "bun:test";
import { jsonText, parseJsonKeepingText } from "../../src/lib/json-text";

describe("JSON text kept from parsing", () => {
  test("a parsed object or array is written out as the text it came from", () => {
    const text = '{ "b": 1,  "a": [1, 2] }';
    const value = parseJsonKeepingText(text);
    expect(jsonText(value)).toBe(text);
    const arrText = "[1,  2]";
    expect(jsonText(parseJsonKeepingText(arrText))).toBe(arrText);
  });

  test("a copy, a value never parsed and primitives are serialised", () => {
    const value = parseJsonKeepingText('{ "a": 1 }') as Record<string, unknown>;
    expect(jsonText({ ...value, b: 2 })).toBe('{"a":1,"b":2}');
    expect(jsonText({ x: "y" })).toBe('{"x":"y"}');
    expect(jsonText(parseJsonKeepingText(" 3 "))).toBe("3");
    expect(jsonText(null)).toBe("null");
    expect(jsonText(undefined)).toBe("null");
  });

  test("the kept text is invisible to keys, spreads, JSON and equality", () => {
    const value = parseJsonKeepingText('{ "a": 1, "b": [true] }') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["a", "b"]);
    expect(Reflect.ownKeys({ ...value })).toEqual(["a", "b"]);
    expect(JSON.stringify(value)).toBe('{"a":1,"b":[true]}');
    expect(value).toStrictEqual({ a: 1, b: [true] });
    expect(structuredClone(value)).toStrictEqual({ a: 1, b: [true] });
  });
});
