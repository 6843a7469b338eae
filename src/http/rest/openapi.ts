import { z } from "zod";
import { openApiPath, type RestRoute, scopeOf } from "./route";
import { REST_ROUTES } from "./routes";
import * as W from "./wire-schemas";

// The OpenAPI document of the REST API, built from the route table (routes.ts) the server mounts.
// schema/openapi.json is its committed print (`bun run openapi:print`); a test fails on drift.

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

function operation(r: RestRoute): Record<string, unknown> {
  const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
  if (r.path.endsWith("/*")) params.push({ name: "path", in: "path", required: true, schema: { type: "string" } });
  const query = Object.entries(r.query ?? {}).map(([name, q]) => ({
    name,
    in: "query",
    required: false,
    description: q.description,
    schema: jsonSchema(q.schema),
  }));
  const headers = Object.entries(r.headers ?? {}).map(([name, description]) => ({
    name,
    in: "header",
    required: false,
    description,
    schema: { type: "string" },
  }));
  const errorSchema = { $ref: r.errorFormat === "openai" ? "#/components/schemas/ChatError" : "#/components/schemas/Error" };
  // Any authenticated route answers 403 to a scoped key without its scope; a gateway route 429 to a limit.
  const codes = new Set(r.errors);
  if (r.auth !== "public") codes.add(403);
  if (scopeOf(r) === "gateway" && r.tag === "Gateway") codes.add(429);
  const errors = Object.fromEntries(
    [...codes].sort((a, b) => a - b).map((code) => [String(code), { description: "Error", content: { "application/json": { schema: errorSchema } } }]),
  );
  return {
    summary: r.summary,
    "x-hone-scope": scopeOf(r),
    tags: [r.tag],
    ...(r.deprecated ? { deprecated: true } : {}),
    ...(r.auth === "public" ? { security: [] } : {}),
    ...(params.length + query.length + headers.length ? { parameters: [...params, ...query, ...headers] } : {}),
    ...(r.body ? { requestBody: { required: true, content: { [r.body.contentType ?? "application/json"]: { schema: jsonSchema(r.body.schema) } } } } : {}),
    responses: {
      "200": { description: "OK", content: { [r.response.contentType ?? "application/json"]: { schema: jsonSchema(r.response.schema) } } },
      ...errors,
    },
  };
}

export function buildOpenApiDocument(routes: readonly RestRoute[] = REST_ROUTES): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) (paths[openApiPath(r.path)] ??= {})[r.method] = operation(r);
  return {
    openapi: "3.1.0",
    info: {
      title: "Hone",
      version: "0.1.1",
      description: "Model tuning, call logging and criteria judging. Every route needs `Authorization: Bearer <project API key>`.",
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearer: [] }],
    tags: ["Gateway", "Logs", "Datasets", "Models", "Criteria"].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "A project API key (hone_sk_…)" } },
      schemas: { Error: jsonSchema(W.ErrorEnvelope), ChatError: jsonSchema(W.ChatErrorEnvelope) },
    },
  };
}
