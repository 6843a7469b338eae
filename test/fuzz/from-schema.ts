import fc from "fast-check";
import { anyHostile, hostileJson, hostileNumber, hostileString, RAW_NUMBER_LITERALS, wrongType } from "./hostile";

// Values shaped by a JSON Schema (the REST routes' OpenAPI bodies and the tRPC procedures' zod
// inputs, converted), so that most requests get past validation and reach the domain, with some
// leaves swapped for hostile values or values of the wrong type. Property names that carry ids,
// model strings or URLs draw from pools of real ones (`Pools`), so lookups hit real rows.

export type JsonSchema = Record<string, any>;

/** Real values the seeded projects hold, by what they are. Arrays are read at draw time. */
export type Pools = {
  datasetIds: string[];
  entryIds: string[];
  logIds: string[];
  completionIds: string[];
  criterionIds: string[];
  alignmentRowIds: string[];
  modelSlugs: string[];
  evaluationIds: string[];
  taskIds: string[];
  customProviderSlugs: string[];
  /** Model strings the fake upstreams answer (healthy): bare, openai:, anthropic:, gemini:, hone:<custom>/<m>. */
  models: string[];
  /** The fake upstream's base URL (custom providers that point there work). */
  upstreamUrl: string;
};

export type Draw = {
  /** Chance that any one leaf is replaced by a hostile value. */
  hostileRate: number;
};

const pick = <T>(xs: T[], fallback: T): fc.Arbitrary<T> => (xs.length ? fc.constantFrom(...xs) : fc.constant(fallback));

/** A pool's values, now and then with a hostile suffix, a version, or another project's look-alike. */
function idFrom(pool: () => string[], prefix: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(null).chain(() => pick(pool(), `${prefix}missing`)) },
    { weight: 1, arbitrary: fc.constant(`${prefix}${"0".repeat(20)}`) },
    {
      weight: 1,
      arbitrary: fc
        .constant(null)
        .chain(() => pick(pool(), prefix))
        .map((id) => `${id}\u0000`),
    },
    { weight: 1, arbitrary: hostileString },
  );
}

function criterionRef(pools: Pools): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: idFrom(() => pools.criterionIds, "crit_") },
    {
      weight: 2,
      arbitrary: fc
        .tuple(pick(pools.criterionIds, "crit_x"), fc.constantFrom("1", "2", "0", "99999999999", "-1", "1.5", "", "1e3", "00001"))
        .map(([id, v]) => `${id}@v${v}`),
    },
  );
}

/** Property names that mean something to Hone, mapped to the values that reach real rows. */
export function hintFor(name: string, pools: Pools): fc.Arbitrary<unknown> | undefined {
  switch (name) {
    case "datasetId":
      return idFrom(() => pools.datasetIds, "ds_");
    case "entryId":
      return idFrom(() => pools.entryIds, "ent_");
    case "logIds":
      return fc.array(
        idFrom(() => pools.logIds, "log_"),
        { maxLength: 5 },
      );
    case "completionId":
    case "completion_id":
      return idFrom(() => pools.completionIds, "chatcmpl-");
    case "criterionId":
    case "criterion_id":
    case "criterion":
      return criterionRef(pools);
    case "criterionIds":
      return fc.array(criterionRef(pools), { maxLength: 4 });
    case "rowId":
      return idFrom(() => pools.alignmentRowIds, "row_");
    case "slug":
    case "modelSlug":
      return fc.oneof(
        idFrom(() => pools.modelSlugs, ""),
        idFrom(() => pools.customProviderSlugs, ""),
        fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/),
      );
    case "model":
    case "judgeModel":
    case "modelA":
    case "modelB":
      return fc.oneof(
        { weight: 5, arbitrary: pick(pools.models, "gpt-4o-mini") },
        { weight: 1, arbitrary: fc.constant("dataset") },
        { weight: 2, arbitrary: hostileString },
      );
    case "models":
      return fc.array(fc.oneof(pick(pools.models, "gpt-4o-mini"), fc.constant("dataset"), hostileString), { maxLength: 4 });
    case "baseUrl":
      return fc.oneof(
        { weight: 4, arbitrary: fc.constant(null).map(() => `${pools.upstreamUrl}/v1`) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            "http://169.254.169.254/",
            "http://127.0.0.1:1/",
            "ftp://x",
            "not a url",
            `http://${"a".repeat(3_000)}.com`,
            "http://[::1]/",
            "http://0.0.0.0/",
          ),
        },
        { weight: 1, arbitrary: hostileString },
      );
    case "id":
      return fc.oneof(
        idFrom(() => pools.datasetIds, "ds_"),
        idFrom(() => pools.evaluationIds, "eval_"),
        idFrom(() => pools.taskIds, "task_"),
        idFrom(() => pools.logIds, "log_"),
        idFrom(() => pools.criterionIds, "crit_"),
      );
    case "messages":
      return messagesArb;
    case "jsonl":
      return jsonlArb(pools);
    case "trainingConfig":
      return fc.oneof(
        fc.record(
          {
            provider: fc.constantFrom("openai", "together", "x"),
            baseModel: fc.oneof(fc.constantFrom("gpt-4o-mini-2024-07-18", "meta-llama/Meta-Llama-3.1-8B-Instruct"), hostileString),
            n_epochs: fc.oneof(fc.integer({ min: -5, max: 100 }), hostileNumber),
          },
          { requiredKeys: [] },
        ),
        anyHostile,
      );
    case "reqPayload":
      // Shaped like the calls clients report, so the fields Hone extracts (model, messages) carry the hostile values.
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record(
            {
              model: fc.oneof(pick(pools.models, "gpt-4o-mini"), hostileString),
              messages: messagesArb,
              max_tokens: hostileNumber,
              system: hostileString,
              metadata: anyHostile,
            },
            { requiredKeys: ["model"] },
          ),
        },
        { weight: 1, arbitrary: anyHostile },
      );
    case "respPayload":
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record(
            {
              id: fc.oneof(fc.constant("chatcmpl-x"), hostileString),
              model: fc.oneof(fc.constant("gpt-4o-mini"), hostileString),
              created: hostileNumber,
              choices: fc.oneof(fc.array(fc.record({ index: hostileNumber, message: messageArb, finish_reason: hostileString }), { maxLength: 3 }), anyHostile),
              usage: fc.oneof(
                fc.record(
                  {
                    prompt_tokens: hostileNumber,
                    completion_tokens: hostileNumber,
                    total_tokens: hostileNumber,
                    input_tokens: hostileNumber,
                    output_tokens: hostileNumber,
                  },
                  { requiredKeys: [] },
                ),
                anyHostile,
              ),
              content: fc.oneof(fc.array(fc.record({ type: fc.constantFrom("text", "tool_use"), text: hostileString }), { maxLength: 3 }), anyHostile),
            },
            { requiredKeys: [] },
          ),
        },
        { weight: 1, arbitrary: anyHostile },
      );
    case "requestedAt":
    case "receivedAt":
      return fc.oneof(fc.constantFrom(0, 1_700_000_000_000, 8.64e15, 8.64e15 + 1, -1, 1e308, 1.5), hostileNumber, fc.constantFrom("1700000000000", "now"));
    case "statusCode":
      return fc.oneof(fc.constantFrom(200, 0, 999, 1000, -1, 1e10, 2 ** 31), hostileNumber);
    default:
      return undefined;
  }
}

const roleArb = fc.constantFrom("user", "assistant", "system", "tool", "developer", "function", "", "USER");

export const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      role: roleArb,
      content: fc.oneof(
        { weight: 4, arbitrary: hostileString },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.array(fc.record({ type: fc.constantFrom("text", "image_url", "x"), text: hostileString }), { maxLength: 3 }) },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      role: fc.constant("assistant"),
      content: fc.constant(null),
      tool_calls: fc.array(
        fc.record({ id: hostileString, type: fc.constant("function"), function: fc.record({ name: hostileString, arguments: hostileString }) }),
        { maxLength: 2 },
      ),
    }),
  },
  { weight: 1, arbitrary: wrongType },
);

/** Chat messages: mostly a user turn then an assistant turn (what datasets need), sometimes anything. */
export const messagesArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.tuple(hostileString, hostileString).map(([q, a]) => [
      { role: "user", content: q || "q" },
      { role: "assistant", content: a || "a" },
    ]),
  },
  { weight: 3, arbitrary: fc.array(messageArb, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>([null], [], null, "hi", [[]], [{}]) },
  { weight: 1, arbitrary: anyHostile },
);

function jsonlArb(pools: Pools): fc.Arbitrary<string> {
  const line = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record(
          {
            messages: messagesArb,
            split: fc.constantFrom("TRAIN", "TEST", "x"),
            judgement: fc.constantFrom("PASS", "FAIL", null, "maybe"),
            output: hostileJson,
          },
          { requiredKeys: [] },
        )
        .map((o) => JSON.stringify(o)),
    },
    { weight: 1, arbitrary: fc.constantFrom("", "{", "null", "[]", "\u0000", '{"messages":"\\ud800"}') },
    { weight: 1, arbitrary: hostileString },
  );
  void pools;
  return fc.array(line, { maxLength: 6 }).map((ls) => ls.join("\n"));
}

/** An arbitrary for values of `schema` (JSON Schema, as zod and the OpenAPI document write it). */
export function fromSchema(schema: JsonSchema, pools: Pools, draw: Draw, name = "", root: JsonSchema = schema, depth = 0): fc.Arbitrary<unknown> {
  const shaped = shapedFromSchema(schema, pools, draw, name, root, depth);
  // A leaf or a whole subtree replaced by something hostile.
  const hostileWeight = Math.round(draw.hostileRate * 100);
  return fc.oneof({ weight: 100 - hostileWeight, arbitrary: shaped }, { weight: hostileWeight, arbitrary: anyHostile });
}

function shapedFromSchema(schema: JsonSchema, pools: Pools, draw: Draw, name: string, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const hint = name ? hintFor(name, pools) : undefined;
  if (hint) return hint;
  if (depth > 6) return hostileJson;
  if (schema.$ref) {
    const target = resolveRef(root, schema.$ref);
    return target ? fromSchema(target, pools, draw, name, root, depth + 1) : hostileJson;
  }
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alts = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alts) && alts.length) return fc.oneof(...alts.map((s: JsonSchema) => fromSchema(s, pools, draw, name, root, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) return fromSchema(Object.assign({}, ...schema.allOf), pools, draw, name, root, depth + 1);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length) return schema.properties ? objectArb(schema, pools, draw, root, depth) : hostileJson;
  return fc.oneof(...types.map((t) => typed(t, schema, pools, draw, root, depth)));
}

function typed(type: string, schema: JsonSchema, pools: Pools, draw: Draw, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string": {
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 40;
      // A pattern without a maxLength may only match longer strings (a sha256 is 64): filtering
      // those at 40 would retry forever, so a pattern's strings are bounded only by its own length.
      const fitting =
        schema.pattern && schema.maxLength === undefined
          ? fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 1_000)
          : schema.pattern
            ? fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= max)
            : fc.string({ minLength: min, maxLength: Math.min(max, Math.max(min, 40)) });
      const edges = [min > 0 ? "x".repeat(min - 1) : undefined, schema.maxLength !== undefined ? "x".repeat(schema.maxLength + 1) : undefined].filter(
        (v) => v !== undefined,
      ) as string[];
      return fc.oneof(
        { weight: 4, arbitrary: fitting },
        { weight: 2, arbitrary: hostileString },
        ...(edges.length ? [{ weight: 1, arbitrary: fc.constantFrom(...edges) }] : []),
      );
    }
    case "integer":
    case "number": {
      const min = schema.minimum ?? (type === "integer" ? -1000 : -1e6);
      const max = schema.maximum ?? (type === "integer" ? 1000 : 1e6);
      const fitting =
        type === "integer" ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) : fc.double({ min, max, noNaN: true });
      const edges = [min - 1, max + 1, min, max].filter(Number.isFinite);
      return fc.oneof({ weight: 4, arbitrary: fitting }, { weight: 2, arbitrary: hostileNumber }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const item = schema.items ? fromSchema(schema.items, pools, draw, "", root, depth + 1) : hostileJson;
      const min = schema.minItems ?? 0;
      const max = schema.maxItems ?? 5;
      return fc.oneof(
        { weight: 5, arbitrary: fc.array(item, { minLength: min, maxLength: Math.min(max, min + 5) }) },
        { weight: 1, arbitrary: fc.array(fc.oneof(item, fc.constant(null)), { minLength: 0, maxLength: 5 }) },
        // One past the maximum: caps must answer 400, not fail deeper.
        { weight: 1, arbitrary: fc.constant(null).chain(() => fc.array(item, { minLength: Math.min(max + 1, 2_000), maxLength: Math.min(max + 1, 2_000) })) },
      );
    }
    case "object":
      return objectArb(schema, pools, draw, root, depth);
    default:
      return hostileJson;
  }
}

function objectArb(schema: JsonSchema, pools: Pools, draw: Draw, root: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const props: Record<string, JsonSchema> = schema.properties ?? {};
  const required: string[] = schema.required ?? [];
  const keys = Object.keys(props);
  if (!keys.length) {
    const valueSchema = typeof schema.additionalProperties === "object" ? schema.additionalProperties : {};
    return fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), hostileString), fromSchema(valueSchema, pools, draw, "", root, depth + 1), { maxKeys: 6 });
  }
  const record = fc.record(Object.fromEntries(keys.map((k) => [k, fromSchema(props[k]!, pools, draw, k, root, depth + 1)])), {
    requiredKeys: required.filter((k) => keys.includes(k)) as never[],
  });
  return fc.oneof(
    { weight: 8, arbitrary: record },
    // A required key dropped, or unknown and prototype keys added.
    {
      weight: 1,
      arbitrary: fc.tuple(record, fc.constantFrom(...keys)).map(([r, k]) => {
        const c = { ...(r as object) } as Record<string, unknown>;
        delete c[k];
        return c;
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(record, fc.constantFrom("__proto__", "constructor", "extra", "")).map(([r, k]) => {
        const c = { ...(r as object) } as Record<string, unknown>;
        Object.defineProperty(c, k, { value: { polluted: true }, enumerable: true });
        return c;
      }),
    },
  );
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let cur: unknown = root;
  for (const part of ref.slice(2).split("/")) cur = (cur as Record<string, unknown> | null | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return cur as JsonSchema | undefined;
}

/**
 * JSON text for `value`, sometimes with one number written as a literal JSON.stringify cannot
 * produce (1e400, 30-digit integers), which JSON.parse turns into Infinity or a rounded double.
 */
export function jsonText(value: unknown, rawNumber: number | null): string {
  const text = JSON.stringify(value) ?? "null";
  if (rawNumber === null) return text;
  let i = 0;
  const literal = RAW_NUMBER_LITERALS[rawNumber % RAW_NUMBER_LITERALS.length]!;
  // Replace the first number that stands as a value (after ':' or '[' or ',').
  return text.replace(/([:[,])(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?=[,}\]])/i, (_m, pre) => (i++ === 0 ? `${pre}${literal}` : _m));
}
