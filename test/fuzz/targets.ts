import fc from "fast-check";
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from "graphql";
import { z } from "zod";
import { schema as graphqlSchema } from "../../src/http/graphql/schema";
import { buildOpenApiDocument } from "../../src/http/rest/openapi";
import { appRouter } from "../../src/http/trpc/router";
import { fromSchema, hintFor, jsonText, messagesArb, type Draw, type JsonSchema, type Pools } from "./from-schema";
import {
  anyHostile,
  excerpt,
  hostileContentType,
  hostileHeaderValue,
  hostileJson,
  hostileNumber,
  hostileString,
  junkBodyText,
  nestedText,
  pathSegment,
  toWellFormed,
  wrongType,
} from "./hostile";

// Every request the fuzzer can send, enumerated from the code itself so that a new route, field
// or procedure is fuzzed without touching this file: REST from the OpenAPI document, GraphQL from
// the schema's root fields, tRPC from the router's procedures.

/** Who a request claims to be; resolved to an Authorization header when it is sent. */
export type Auth = "project" | "lowercase" | "none" | "bogus" | "admin" | "malformed";

export class FuzzRequest {
  constructor(
    readonly transport: "rest" | "graphql" | "trpc" | "raw",
    /** What was aimed at: "POST /datasets/{datasetId}/entries", "mutation createDataset", "trpc datasets.create". */
    readonly target: string,
    readonly method: string,
    /** Path and query, already encoded. */
    readonly path: string,
    readonly headers: Record<string, string>,
    readonly body: string | undefined,
    readonly auth: Auth,
  ) {}

  /** A short reproduction for reports (bodies can be megabytes). */
  describe(max = 400): string {
    const headers = Object.entries(this.headers)
      .filter(([k]) => k !== "content-type" || this.body !== undefined)
      .map(([k, v]) => `${k}: ${excerpt(v, 120)}`)
      .join("; ");
    return `${this.method} ${excerpt(this.path, 200)} [auth=${this.auth}]${headers ? ` {${headers}}` : ""}${this.body !== undefined ? ` body=${excerpt(this.body, max)}` : ""}`;
  }

  [fc.toStringMethod](): string {
    return this.describe();
  }
}

const authArb: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 40, arbitrary: fc.constant<Auth>("project") },
  { weight: 1, arbitrary: fc.constantFrom<Auth>("lowercase", "none", "bogus", "admin", "malformed") },
);

// ------------------------------------------------------------------------------------------ REST

type OpenApiOperation = {
  parameters?: { name: string; in: "path" | "query" | "header"; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
};

export type RestRoute = { method: string; path: string; op: OpenApiOperation };

export function restRoutes(): RestRoute[] {
  const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, OpenApiOperation>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
}

function headerValue(name: string, pools: Pools): fc.Arbitrary<string> {
  const valid: Record<string, fc.Arbitrary<string>> = {
    "op-log-request": fc.constantFrom("true", "false", "TRUE", " false "),
    "op-cache": fc.constantFrom("readWrite", "readOnly", "writeOnly", "true", "false"),
    "op-criteria": fc
      .array(
        fc
          .constant(null)
          .chain(() => (pools.criterionIds.length ? fc.constantFrom(...pools.criterionIds) : fc.constant("crit_x")))
          .chain((id) => fc.constantFrom(id, `${id}@v1`, `${id}@v99999999999`)),
        { maxLength: 3 },
      )
      .map((a) => JSON.stringify(a)),
    "op-tags": fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean())).map((o) => JSON.stringify(o)),
  };
  return fc.oneof({ weight: 2, arbitrary: valid[name] ?? fc.constant("") }, { weight: 1, arbitrary: hostileHeaderValue });
}

function bodyFor(route: RestRoute, pools: Pools, draw: Draw): fc.Arbitrary<{ body?: string; contentType?: string }> {
  const content = route.op.requestBody?.content;
  if (!content) {
    // Routes without a body still get one now and then.
    return fc.oneof(
      { weight: 9, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: junkBodyText.map((body) => ({ body, contentType: "application/json" })) },
    );
  }
  const [type, { schema }] = Object.entries(content)[0]!;
  const value = fromSchema(schema, pools, draw, "", schema);
  const shaped =
    type === "application/x-ndjson"
      ? fc
          .tuple(
            fc.array(fc.oneof({ weight: 4, arbitrary: value.map((v) => JSON.stringify(v) ?? "null") }, { weight: 1, arbitrary: junkBodyText }), {
              maxLength: 8,
            }),
            fc.constantFrom("\n", "\r\n"),
          )
          .map(([lines, eol]) => ({ body: lines.join(eol), contentType: type }))
      : fc.tuple(value, fc.option(fc.nat(), { freq: 8 })).map(([v, raw]) => ({ body: jsonText(v, raw), contentType: type }));
  return fc.oneof(
    { weight: 16, arbitrary: shaped },
    { weight: 1, arbitrary: fc.tuple(anyHostile, hostileContentType).map(([v, ct]) => ({ body: JSON.stringify(v) ?? "null", contentType: ct })) },
    { weight: 1, arbitrary: fc.tuple(junkBodyText, hostileContentType).map(([body, ct]) => ({ body, contentType: ct })) },
    { weight: 1, arbitrary: fc.tuple(shaped, hostileContentType).map(([b, ct]) => ({ body: b.body, contentType: ct })) },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

export function restRequest(route: RestRoute, pools: Pools, draw: Draw): fc.Arbitrary<FuzzRequest> {
  const params = route.op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === "path");
  const queryParams = params.filter((p) => p.in === "query");
  const headerParams = params.filter((p) => p.in === "header");
  const pathArb = fc
    .tuple(
      fc.tuple(
        ...pathParams.map((p) =>
          fc.tuple(
            hintFor(p.name, pools) ?? hostileString,
            fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
          ),
        ),
      ),
      fc.tuple(...queryParams.map((p) => fc.option(fromSchema(p.schema, pools, draw, p.name), { freq: 2 }))),
      fc.option(fc.dictionary(fc.string({ maxLength: 6 }), hostileString, { maxKeys: 3 }), { freq: 5 }),
    )
    .map(([pv, qv, junk]) => {
      let path = route.path;
      pathParams.forEach((p, i) => {
        const [value, raw] = pv[i] as [unknown, boolean];
        path = path.replace(`{${p.name}}`, pathSegment(String(value), raw) || "%20");
      });
      const q = new URLSearchParams();
      queryParams.forEach((p, i) => {
        if (qv[i] !== null) q.append(p.name, toWellFormed(typeof qv[i] === "string" ? (qv[i] as string) : (JSON.stringify(qv[i]) ?? "")));
      });
      for (const [k, v] of Object.entries(junk ?? {})) q.append(toWellFormed(k), toWellFormed(v));
      const qs = q.toString();
      return `/api/v1${path}${qs ? `?${qs}` : ""}`;
    });
  const headersArb = fc.tuple(...headerParams.map((p) => fc.option(headerValue(p.name, pools), { freq: 2 }))).map((vals) => {
    const h: Record<string, string> = {};
    headerParams.forEach((p, i) => {
      if (vals[i] !== null) h[p.name] = vals[i] as string;
    });
    return h;
  });
  return fc.tuple(pathArb, headersArb, bodyFor(route, pools, draw), authArb).map(([path, headers, b, auth]) => {
    if (b.contentType !== undefined && b.body !== undefined) headers["content-type"] = b.contentType;
    return new FuzzRequest("rest", `${route.method} ${route.path}`, route.method, path, headers, b.body, auth);
  });
}

// --------------------------------------------------------------------------------------- GraphQL

export type GraphqlField = { operation: "query" | "mutation"; field: GraphQLField<unknown, unknown> };

export function graphqlFields(schema: GraphQLSchema = graphqlSchema): GraphqlField[] {
  const out: GraphqlField[] = [];
  for (const operation of ["query", "mutation"] as const) {
    const root = operation === "query" ? schema.getQueryType() : schema.getMutationType();
    for (const field of Object.values(root?.getFields() ?? {})) out.push({ operation, field });
  }
  return out;
}

const datasetEntryShape = fc.record(
  {
    messages: messagesArb,
    split: fc.constantFrom("TRAIN", "TEST", "train", "x"),
    metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), hostileString, { maxKeys: 4 }), anyHostile),
    tools: fc.oneof(fc.constant(null), anyHostile),
    tool_choice: fc.oneof(fc.constantFrom("auto", "none", "required"), anyHostile),
    response_format: fc.oneof(fc.constant({ type: "json_object" }), anyHostile),
  },
  { requiredKeys: ["messages"] },
);

function gqlValue(type: GraphQLInputType, name: string, pools: Pools, draw: Draw, depth: number): fc.Arbitrary<unknown> {
  const rate = Math.round(draw.hostileRate * 100);
  if (isNonNullType(type))
    return fc.oneof({ weight: 97, arbitrary: gqlValue(type.ofType, name, pools, draw, depth) }, { weight: 3, arbitrary: fc.constant(null) });
  let inner: fc.Arbitrary<unknown>;
  if (isListType(type)) {
    const item = name === "entries" ? datasetEntryShape : gqlValue(type.ofType, "", pools, draw, depth + 1);
    const hint = hintFor(name, pools);
    inner = fc.oneof(
      hint ?? fc.array(item, { maxLength: 5 }),
      fc.array(item, { maxLength: 5 }),
      item,
      fc.constant(null).chain(() => fc.array(item, { minLength: 101, maxLength: 101 })),
    );
  } else if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    inner =
      depth > 5
        ? fc.constant({})
        : fc.record(Object.fromEntries(fields.map((f) => [f.name, gqlValue(f.type, f.name, pools, draw, depth + 1)])), {
            requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name) as never[],
          });
  } else if (isEnumType(type)) {
    inner = fc.oneof(fc.constantFrom(...type.getValues().map((v) => v.name)), hostileString);
  } else if (isScalarType(type)) {
    const hint = hintFor(name, pools);
    switch (type.name) {
      case "Int":
        inner = fc.oneof(
          hint ?? fc.constant(1),
          fc.constantFrom(0, 1, 10, 200, 201, 1000, 10_000, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 1e10, 1.5),
          fc.integer(),
        );
        break;
      case "Float":
        inner = hostileNumber;
        break;
      case "Boolean":
        inner = fc.boolean();
        break;
      case "JSON":
        inner = name === "trainingConfig" && hint ? hint : anyHostile;
        break;
      case "DateTime":
        inner = fc.oneof(fc.constantFrom("2024-01-01T00:00:00Z", "+275760-09-13T00:00:00.000Z", "0"), hostileString);
        break;
      default:
        inner = fc.oneof({ weight: 3, arbitrary: hint ?? hostileString }, { weight: 1, arbitrary: hostileString });
    }
  } else {
    inner = hostileJson;
  }
  return fc.oneof(
    { weight: 80 - Math.min(rate, 70), arbitrary: inner },
    { weight: 15, arbitrary: fc.constant(null) },
    { weight: 5 + Math.min(rate, 70), arbitrary: wrongType },
  );
}

/** A GraphQL literal for a value (strings via JSON escapes, which GraphQL reads the same way). */
export function gqlLiteral(v: unknown, enumish = false): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "string") return enumish && /^[_A-Za-z][_0-9A-Za-z]*$/.test(v) ? v : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => gqlLiteral(x)).join(", ")}]`;
  if (typeof v === "object") {
    const entries = Object.entries(v as object).filter(([k]) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(k));
    return `{${entries.map(([k, x]) => `${k}: ${gqlLiteral(x)}`).join(", ")}}`;
  }
  return "null";
}

/** Values nested past the printer's stack become a deep list literal of the same spirit. */
function safeLiteral(v: unknown, enumish: boolean): string {
  try {
    return gqlLiteral(v, enumish);
  } catch {
    return `${"[".repeat(5_000)}1${"]".repeat(5_000)}`;
  }
}

const firstArb = fc.constantFrom(1, 2, 5, 50, 200, 201, 1000, 0, -1, 2 ** 31 - 1);

function selection(type: GraphQLOutputType, pools: Pools, maxDepth: number, depth = 0): fc.Arbitrary<string> {
  const named = getNamedType(type);
  if (isLeafType(named) || !isObjectType(named)) return fc.constant("");
  const fields = Object.values(named.getFields());
  const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)) && f.args.every((a) => !isNonNullType(a.type)));
  const objects = fields.filter((f) => !isLeafType(getNamedType(f.type)));
  const leafSel = fc.subarray(leaves, { minLength: leaves.length ? 1 : 0 }).map((fs) => fs.map((f) => f.name));
  if (depth >= maxDepth || !objects.length) {
    return leafSel.map((names) => (names.length ? names.join(" ") : "__typename"));
  }
  const objSel = fc
    .subarray(objects, { maxLength: Math.min(2, objects.length) })
    .chain((fs) =>
      fs.length
        ? fc.tuple(
            ...fs.map((f) =>
              fc.tuple(selection(f.type, pools, maxDepth, depth + 1), fieldArgs(f, pools)).map(([sub, args]) => `${f.name}${args} { ${sub || "__typename"} }`),
            ),
          )
        : fc.constant([] as string[]),
    );
  return fc.tuple(leafSel, objSel).map(([ls, os]) => [...ls, ...os].join(" ") || "__typename");
}

/** Inline arguments of a nested field (connections' `first`, filters, head-to-head models). */
function fieldArgs(f: GraphQLField<unknown, unknown>, pools: Pools): fc.Arbitrary<string> {
  if (!f.args.length) return fc.constant("");
  return fc
    .tuple(
      ...f.args.map((a) => {
        const required = isNonNullType(a.type);
        const value: fc.Arbitrary<string> =
          a.name === "first" || a.name === "last"
            ? firstArb.map(String)
            : a.name === "split"
              ? fc.constantFrom('"TRAIN"', '"TEST"', '"x"')
              : a.name === "verdict"
                ? fc
                    .constant(null)
                    .chain(() =>
                      fc.tuple(
                        pools.criterionIds.length ? fc.constantFrom(...pools.criterionIds) : fc.constant("crit_x"),
                        fc.constantFrom("PASS", "FAIL", "x"),
                      ),
                    )
                    .map(([c, j]) => `{criterionId: ${JSON.stringify(c)}, judgement: ${JSON.stringify(j)}}`)
                : (hintFor(a.name, pools) ?? hostileString).map((v) => gqlLiteral(typeof v === "string" ? v : String(v)));
        return required
          ? value.map((v) => `${a.name}: ${v}`)
          : fc
              .option(
                value.map((v) => `${a.name}: ${v}`),
                { freq: 2 },
              )
              .map((v) => v ?? "");
      }),
    )
    .map((parts) => {
      const p = parts.filter(Boolean);
      return p.length ? `(${p.join(", ")})` : "";
    });
}

function graphqlBody(f: GraphqlField, pools: Pools, draw: Draw): fc.Arbitrary<{ query: string; variables: Record<string, unknown> }> {
  const args = f.field.args;
  return fc
    .tuple(
      fc.tuple(...args.map((a) => gqlValue(a.type, a.name, pools, draw, 0))),
      fc.integer({ min: 0, max: 3 }).chain((d) => selection(f.field.type, pools, d)),
      fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    )
    .map(([values, sel, inline]) => {
      const decl = args.map((a) => `$${a.name}: ${String(a.type)}`).join(", ");
      const variables: Record<string, unknown> = {};
      const argText = args
        .map((a, i) => {
          if (inline) return `${a.name}: ${safeLiteral(values[i], isEnumType(getNamedType(a.type)))}`;
          if (values[i] !== undefined) variables[a.name] = values[i];
          return `${a.name}: $${a.name}`;
        })
        .join(", ");
      const body = sel ? ` { ${sel} }` : "";
      const header = !inline && decl ? `${f.operation} Fuzz(${decl})` : `${f.operation} Fuzz`;
      return { query: `${header} { ${f.field.name}${argText ? `(${argText})` : ""}${body} }`, variables };
    });
}

const junkDocuments: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "{",
    "query",
    "{ __typename }",
    "{ __schema { types { name fields { name args { name } } } } }",
    "query A { __typename } query B { __typename }",
    "fragment A on Query { ...B } fragment B on Query { ...A } { ...A }",
    "{ datasets { id } }".repeat(3),
    "subscription { x }",
    `{ ${Array.from({ length: 2_000 }, (_, i) => `a${i}: __typename`).join(" ")} }`,
    `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: datasets { id name entryCount }`).join(" ")} }`,
    `{ datasets { ${"entries(first: 200) { edges { node { dataset { ".repeat(3)}id${" } } } }".repeat(3)} } }`,
    '{ datasets @skip(if: "x") { id } }',
    `{ datasets { ${"id ".repeat(20_000)}} }`,
    `{ ${"datasets { ".repeat(2_000)}id${" }".repeat(2_000)} }`,
    "{".repeat(50_000),
    "query ($a: [[[[[[[[[[Int]]]]]]]]]]) { __typename }",
    '{ dataset(id: "\\ud800") { id } }',
    '{ dataset(id: "\u0000") { id } }',
    `mutation { createDataset(input: {name: ${JSON.stringify("a".repeat(100_000))}}) { id } }`,
  ),
  fc.string({ maxLength: 80 }),
  hostileString,
);

export function graphqlRequest(f: GraphqlField, pools: Pools, draw: Draw): fc.Arbitrary<FuzzRequest> {
  const target = `${f.operation} ${f.field.name}`;
  const ct = { "content-type": "application/json" };
  return fc.oneof(
    {
      weight: 20,
      arbitrary: fc
        .tuple(graphqlBody(f, pools, draw), authArb)
        .map(([b, auth]) => new FuzzRequest("graphql", target, "POST", "/graphql", ct, JSON.stringify(b), auth)),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(graphqlBody(f, pools, draw), authArb).map(([b, auth]) => {
        const q = new URLSearchParams({ query: toWellFormed(b.query), variables: toWellFormed(JSON.stringify(b.variables)) });
        return new FuzzRequest("graphql", `${target} (GET)`, "GET", `/graphql?${q}`, { accept: "application/json" }, undefined, auth);
      }),
    },
    // The same operation with the variables or the envelope mangled.
    {
      weight: 2,
      arbitrary: fc
        .tuple(graphqlBody(f, pools, draw), fc.constantFrom<unknown>("x", [], 1, null, [1, 2], { __proto__: null }))
        .map(
          ([b, vars]) =>
            new FuzzRequest(
              "graphql",
              `${target} (bad variables)`,
              "POST",
              "/graphql",
              ct,
              JSON.stringify({ query: b.query, variables: vars, operationName: "Fuzz" }),
              "project",
            ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(graphqlBody(f, pools, draw), fc.integer({ min: 2, max: 30 }))
        .map(
          ([b, n]) => new FuzzRequest("graphql", `${target} (batch)`, "POST", "/graphql", ct, JSON.stringify(Array.from({ length: n }, () => b)), "project"),
        ),
    },
    {
      weight: 1,
      arbitrary: junkDocuments.map((q) => new FuzzRequest("graphql", "graphql junk document", "POST", "/graphql", ct, JSON.stringify({ query: q }), "project")),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(junkBodyText, hostileContentType)
        .map(([body, type]) => new FuzzRequest("graphql", "graphql junk body", "POST", "/graphql", { "content-type": type }, body, "project")),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(graphqlBody(f, pools, draw), hostileString, fc.constantFrom<unknown>(1, null, [], {}, "x"), fc.boolean())
        .map(
          ([b, op, q, junkQuery]) =>
            new FuzzRequest(
              "graphql",
              `${target} (bad envelope)`,
              "POST",
              "/graphql",
              ct,
              JSON.stringify({ query: junkQuery ? q : b.query, operationName: op, extensions: { persistedQuery: { version: 1, sha256Hash: op } } }),
              "project",
            ),
        ),
    },
  );
}

// ------------------------------------------------------------------------------------------ tRPC

export type TrpcProcedure = { path: string; type: "query" | "mutation"; input: JsonSchema | null };

export function trpcProcedures(): TrpcProcedure[] {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string; inputs: z.ZodType[] } }> } })._def.procedures;
  return Object.entries(procedures).map(([path, p]) => {
    const first = p._def.inputs[0];
    const input = first ? (z.toJSONSchema(first, { io: "input", unrepresentable: "any" }) as JsonSchema) : null;
    return { path, type: p._def.type as "query" | "mutation", input };
  });
}

function trpcInput(p: TrpcProcedure, pools: Pools, draw: Draw): fc.Arbitrary<unknown> {
  if (!p.input) return fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: anyHostile });
  return fromSchema(p.input, pools, draw, "", p.input);
}

export function trpcRequest(p: TrpcProcedure, all: TrpcProcedure[], pools: Pools, draw: Draw): fc.Arbitrary<FuzzRequest> {
  const target = `trpc ${p.path}`;
  const single = fc.tuple(trpcInput(p, pools, draw), authArb, fc.option(fc.nat(), { freq: 10 })).map(([input, auth, raw]) => {
    if (p.type === "query") {
      const q = input === undefined ? "" : `?input=${encodeURIComponent(toWellFormed(jsonText(input, raw)))}`;
      return new FuzzRequest("trpc", target, "GET", `/trpc/${p.path}${q}`, {}, undefined, auth);
    }
    return new FuzzRequest(
      "trpc",
      target,
      "POST",
      `/trpc/${p.path}`,
      { "content-type": "application/json" },
      input === undefined ? undefined : jsonText(input, raw),
      auth,
    );
  });
  const sameType = all.filter((o) => o.type === p.type);
  const batch = fc
    .tuple(fc.array(fc.constantFrom(...sameType), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.constantFrom(0, 0, 0, 12, 60))
    .chain(([others, stream, extra]) => {
      const procs = [p, ...others, ...Array.from({ length: extra }, () => p)];
      // Past the first few, calls carry a cheap input: the batch's size is what is under test.
      return fc.tuple(...procs.map((o, i) => (i < 5 ? trpcInput(o, pools, draw) : fc.constant({})))).map((inputs) => {
        const path = `/trpc/${procs.map((o) => o.path).join(",")}?batch=1`;
        const obj = Object.fromEntries(inputs.map((v, i) => [String(i), v]));
        const headers: Record<string, string> = stream ? { "trpc-accept": "application/jsonl" } : {};
        if (p.type === "query")
          return new FuzzRequest(
            "trpc",
            `${target} (batch of ${procs.length})`,
            "GET",
            `${path}&input=${encodeURIComponent(toWellFormed(JSON.stringify(obj)))}`,
            headers,
            undefined,
            "project",
          );
        return new FuzzRequest(
          "trpc",
          `${target} (batch of ${procs.length})`,
          "POST",
          path,
          { ...headers, "content-type": "application/json" },
          JSON.stringify(obj),
          "project",
        );
      });
    });
  const mangled = fc.oneof(
    // The wrong method for the procedure's type, a junk input text, an unknown procedure.
    trpcInput(p, pools, draw).map(
      (input) =>
        new FuzzRequest(
          "trpc",
          `${target} (wrong method)`,
          p.type === "query" ? "POST" : "GET",
          `/trpc/${p.path}?input=${encodeURIComponent(toWellFormed(JSON.stringify(input) ?? ""))}`,
          { "content-type": "application/json" },
          p.type === "query" ? (JSON.stringify(input) ?? "") : undefined,
          "project",
        ),
    ),
    junkBodyText.map((text) =>
      p.type === "query"
        ? new FuzzRequest(
            "trpc",
            `${target} (junk input)`,
            "GET",
            `/trpc/${p.path}?input=${encodeURIComponent(toWellFormed(text.slice(0, 20_000)))}`,
            {},
            undefined,
            "project",
          )
        : new FuzzRequest("trpc", `${target} (junk input)`, "POST", `/trpc/${p.path}`, { "content-type": "application/json" }, text, "project"),
    ),
    fc
      .tuple(hostileString, fc.constantFrom("GET", "POST"))
      .map(
        ([name, method]) =>
          new FuzzRequest(
            "trpc",
            "trpc unknown procedure",
            method,
            `/trpc/${pathSegment(name, false) || "x"}${method === "GET" ? "?batch=1&input={}" : ""}`,
            { "content-type": "application/json" },
            method === "POST" ? "{}" : undefined,
            "project",
          ),
      ),
    fc
      .constantFrom(nestedText(5_000, "object"), `{"0":${nestedText(3_000, "array")}}`)
      .map(
        (text) =>
          new FuzzRequest(
            "trpc",
            `${target} (deep input)`,
            p.type === "query" ? "GET" : "POST",
            p.type === "query" ? `/trpc/${p.path}?input=${encodeURIComponent(text)}` : `/trpc/${p.path}`,
            { "content-type": "application/json" },
            p.type === "query" ? undefined : text,
            "project",
          ),
      ),
  );
  return fc.oneof({ weight: 12, arbitrary: single }, { weight: 3, arbitrary: batch }, { weight: 2, arbitrary: mangled });
}

// ------------------------------------------------------------------------------------------- raw

/** Requests at no route in particular: unknown paths, odd methods, odd encodings. */
export const rawRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
    fc.oneof(
      fc.constantFrom(
        "/",
        "/health",
        "/api",
        "/api/v1",
        "/api/v1/",
        "/api/v1/openapi.json",
        "/api/v1/docs",
        "/api/v1/datasets/%",
        "/api/v1/datasets/%E0%A4%A",
        "/api/v1/datasets/%00",
        "/api/v1/datasets/%C0%AF",
        "/api/v1/datasets/..%2F..%2Fhealth",
        "/api/v1//report",
        "//api//v1//datasets",
        "/api/v1/chat/completions/",
        "/trpc",
        "/trpc/",
        "/graphql/x",
        `/api/v1/${"a".repeat(60_000)}`,
        `/api/v1/datasets?${"a=1&".repeat(5_000)}`,
      ),
      fc.string({ maxLength: 30 }).map((s) => `/api/v1/${pathSegment(s, true)}`),
    ),
    fc.option(junkBodyText, { freq: 2 }),
    hostileContentType,
    authArb,
  )
  .map(([method, path, body, type, auth]) => {
    const sendBody = body !== null && method !== "GET" && method !== "HEAD" ? body : undefined;
    return new FuzzRequest("raw", `${method} (raw)`, method, path, sendBody !== undefined ? { "content-type": type } : {}, sendBody, auth);
  });

// -------------------------------------------------------------------------------------- catalogue

export type Target = { name: string; transport: FuzzRequest["transport"]; arbitrary: fc.Arbitrary<FuzzRequest> };

/** One arbitrary per route, root field and procedure (plus the raw one), built once the pools are seeded. */
/**
 * Deleting the project's own logs by filter is what these verbs are for: a random filter (or
 * all: true) would rightly empty the fuzzing project and break the "nothing stored was lost"
 * check. Their input is the LogFilter every log query takes (fuzzed through those), and their
 * refusals are tested in test/http/logs-export-delete.test.ts.
 */
const DESTRUCTIVE_BY_DESIGN = new Set(["POST /logs/delete", "mutation deleteLogs", "trpc logs.deleteByFilter"]);

export function allTargets(pools: Pools, draw: Draw = { hostileRate: 0.15 }): Target[] {
  return everyTarget(pools, draw).filter((x) => !DESTRUCTIVE_BY_DESIGN.has(x.name));
}

function everyTarget(pools: Pools, draw: Draw): Target[] {
  // Left out of the batches too: a batch mixes other procedures of the same type into a call, and
  // `logs.deleteByFilter` drawn there deleted the fuzzing project's own seeded logs ("LOST").
  const procedures = trpcProcedures().filter((p) => !DESTRUCTIVE_BY_DESIGN.has(`trpc ${p.path}`));
  return [
    ...restRoutes().map((r) => ({ name: `${r.method} ${r.path}`, transport: "rest" as const, arbitrary: restRequest(r, pools, draw) })),
    ...graphqlFields().map((f) => ({ name: `${f.operation} ${f.field.name}`, transport: "graphql" as const, arbitrary: graphqlRequest(f, pools, draw) })),
    ...procedures.map((p) => ({ name: `trpc ${p.path}`, transport: "trpc" as const, arbitrary: trpcRequest(p, procedures, pools, draw) })),
    { name: "raw", transport: "raw" as const, arbitrary: rawRequest },
  ];
}
