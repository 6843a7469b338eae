import { z } from "zod";
import { ChatCompletionRequest } from "../../domain/completions";
import { JudgeRequest } from "../../domain/criteria";
import { AddDatasetEntriesInput, CreateDatasetInput, DatasetEntryInput } from "../../domain/datasets";
import { AnthropicReportInput, CheckCacheInput, ReportInput, UpdateMetadataInput } from "../../domain/logs";
import { CreateFineTuneInput, CreateModelInput } from "../../domain/models";
import * as W from "./wire-schemas";

// The OpenAPI document of the REST API, built from the zod schemas the routes validate with.
// schema/openapi.json is its committed print (`bun run openapi:print`); a test fails on drift.

type RouteDoc = {
  method: "get" | "post" | "delete";
  path: string;
  summary: string;
  tag: string;
  body?: z.ZodType;
  bodyType?: string;
  response: z.ZodType;
  responseType?: string;
  query?: Record<string, { schema: z.ZodType; description: string }>;
  errors: number[];
  deprecated?: boolean;
  headers?: Record<string, string>;
};

const COMMON = [400, 401];
const datasetBody = <T extends z.ZodObject>(s: T) => s.omit({ datasetId: true } as never);

export const ROUTES: RouteDoc[] = [
  {
    method: "post",
    path: "/chat/completions",
    summary: "Create a chat completion (OpenAI-compatible); `stream: true` answers with server-sent events",
    tag: "Gateway",
    body: ChatCompletionRequest,
    response: W.ChatCompletionWire,
    errors: [...COMMON, 404, 409, 413, 429, 500, 502, 504],
    headers: {
      "op-log-request": "true | false (default true)",
      "op-cache": "readWrite | readOnly | writeOnly | true | false",
      "op-criteria": 'JSON array of criterion ids, e.g. ["crit_…@v1"]',
      "op-tags": "JSON object of metadata tags",
    },
  },
  { method: "post", path: "/check-cache", summary: "Deprecated: always answers {respPayload: null}", tag: "Logs", body: CheckCacheInput, response: W.CheckCacheWire, errors: COMMON, deprecated: true },
  { method: "post", path: "/report", summary: "Record a call made in the chat-completions format", tag: "Logs", body: ReportInput, response: W.StatusOk, errors: COMMON },
  { method: "post", path: "/report-anthropic", summary: "Record a call made to Anthropic's Messages API", tag: "Logs", body: AnthropicReportInput, response: W.StatusOk, errors: COMMON },
  { method: "post", path: "/logs/update-metadata", summary: "Merge metadata into the logs matching all filters (null deletes a key)", tag: "Logs", body: UpdateMetadataInput, response: W.MatchedLogs, errors: COMMON },
  {
    method: "post",
    path: "/logs/update-tags",
    summary: "Deprecated spelling of update-metadata (`tags` instead of `metadata`)",
    tag: "Logs",
    body: z.object({ filters: UpdateMetadataInput.shape.filters, tags: UpdateMetadataInput.shape.metadata }),
    response: W.MatchedLogs,
    errors: COMMON,
    deprecated: true,
  },
  { method: "get", path: "/local-testing-only-get-latest-logged-call", summary: "The project's newest log (only with HONE_TESTING_ROUTES=true)", tag: "Logs", response: W.LatestLoggedCall, errors: [401, 404] },
  { method: "get", path: "/datasets", summary: "List the project's datasets", tag: "Datasets", response: W.listOf(W.DatasetWire), errors: [401] },
  { method: "post", path: "/datasets", summary: "Create a dataset", tag: "Datasets", body: CreateDatasetInput, response: W.DatasetWire, errors: COMMON },
  { method: "delete", path: "/datasets/{datasetId}", summary: "Delete a dataset and its entries", tag: "Datasets", response: W.DeletionWire, errors: [401, 404] },
  {
    method: "post",
    path: "/datasets/{datasetId}/entries",
    summary: "Add 1 to 100 entries; invalid ones are reported by index while the valid ones are stored",
    tag: "Datasets",
    body: datasetBody(AddDatasetEntriesInput).extend({ entries: z.array(DatasetEntryInput).min(1).max(100) }),
    response: W.EntriesCreationWire,
    errors: [...COMMON, 404],
  },
  {
    method: "post",
    path: "/datasets/{datasetId}/import",
    summary: "Import a JSONL file (raw application/x-ndjson body or a multipart file field), streamed",
    tag: "Datasets",
    body: DatasetEntryInput,
    bodyType: "application/x-ndjson",
    response: W.ImportWire,
    errors: [...COMMON, 404, 413],
  },
  {
    method: "get",
    path: "/datasets/{datasetId}/export",
    summary: "Export the entries as JSONL, streamed",
    tag: "Datasets",
    response: W.ExportRowWire,
    responseType: "application/x-ndjson",
    query: {
      split: { schema: z.enum(["TRAIN", "TEST"]), description: "only this split" },
      criterion: { schema: z.string(), description: "with judgement: only entries whose latest verdict of this criterion is the judgement" },
      judgement: { schema: z.enum(["PASS", "FAIL"]), description: "see criterion" },
      includeVerdicts: {
        schema: z.enum(["true", "false"]),
        description: "true: each row also carries `verdicts`, the latest verdict of every criterion that judged the entry ([] when none)",
      },
    },
    errors: [400, 401, 404],
  },
  { method: "get", path: "/models", summary: "List the project's fine-tuned models", tag: "Models", response: W.listOf(W.ModelWire), errors: [401] },
  { method: "post", path: "/models", summary: "Train a new model from a dataset", tag: "Models", body: CreateModelInput, response: W.ModelWire, errors: [...COMMON, 404, 409] },
  { method: "get", path: "/models/{modelSlug}", summary: "Get one model", tag: "Models", response: W.ModelWire, errors: [401, 404] },
  { method: "delete", path: "/models/{modelSlug}", summary: "Delete a model (cancelling its training)", tag: "Models", response: W.DeletionWire, errors: [401, 404] },
  { method: "post", path: "/unstable/finetune/create", summary: "Start a fine-tune", tag: "Models", body: CreateFineTuneInput, response: W.FineTuneCreated, errors: [...COMMON, 404, 409] },
  { method: "post", path: "/criteria/judge", summary: "Judge an output with a criterion (<id> for the latest version, <id>@v<N> for a fixed one)", tag: "Criteria", body: JudgeRequest, response: W.JudgeWire, errors: [...COMMON, 404, 502, 504] },
];

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const query = Object.entries(r.query ?? {}).map(([name, q]) => ({ name, in: "query", required: false, description: q.description, schema: jsonSchema(q.schema) }));
    const headers = Object.entries(r.headers ?? {}).map(([name, description]) => ({ name, in: "header", required: false, description, schema: { type: "string" } }));
    const errors = Object.fromEntries(
      r.errors.map((code) => [
        String(code),
        { description: "Error", content: { "application/json": { schema: { $ref: r.path === "/chat/completions" ? "#/components/schemas/ChatError" : "#/components/schemas/Error" } } } },
      ]),
    );
    (paths[r.path] ??= {})[r.method] = {
      summary: r.summary,
      tags: [r.tag],
      ...(r.deprecated ? { deprecated: true } : {}),
      ...(params.length + query.length + headers.length ? { parameters: [...params, ...query, ...headers] } : {}),
      ...(r.body ? { requestBody: { required: true, content: { [r.bodyType ?? "application/json"]: { schema: jsonSchema(r.body) } } } } : {}),
      responses: {
        "200": { description: "OK", content: { [r.responseType ?? "application/json"]: { schema: jsonSchema(r.response) } } },
        ...errors,
      },
    };
  }
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
