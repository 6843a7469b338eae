import { z } from "zod";
import {
  AddDatasetEntriesInput,
  addDatasetEntries,
  createDataset,
  CreateDatasetInput,
  DatasetEntryInput,
  deleteDataset,
  exportDataset,
  importDatasetJsonl,
  listDatasets,
} from "../../domain/datasets";
import { errorFields } from "../../core/logger";
import { requestMeta } from "../request-meta";
import { linesOf, multipartFileChunks } from "./lines";
import { createPacer, heldUntilDone } from "./pacing";
import { route } from "./route";
import { datasetToWire, deletedToWire, entriesCreationToWire, PAGE_QUERY, pageOfQuery, pageToWire } from "./wire";
import * as W from "./wire-schemas";

/** The lines of an upload, paced: they are garbage once stored (see pacing.ts). */
async function* collecting(lines: AsyncIterable<string>): AsyncGenerator<string> {
  const pacer = createPacer();
  for await (const line of lines) {
    pacer.count(line.length);
    yield line;
  }
}

export const datasetsRoutes = [
  route({
    method: "get",
    path: "/datasets",
    summary: "List the project's datasets, newest first, a page at a time",
    tag: "Datasets",
    auth: "project",
    query: PAGE_QUERY,
    response: { schema: W.pageOf(W.DatasetWire) },
    errors: [400, 401],
    handler: async ({ ctx, deps, query }) => {
      const page = pageOfQuery(query, deps.config.maxPageSize);
      return pageToWire((await listDatasets(ctx, page)).map(datasetToWire), page.first);
    },
  }),
  route({
    method: "post",
    path: "/datasets",
    summary: "Create a dataset",
    tag: "Datasets",
    auth: "project",
    body: { schema: CreateDatasetInput, read: "object" },
    response: { schema: W.DatasetWire },
    errors: [400, 401],
    handler: async ({ ctx, body }) => datasetToWire(await createDataset(ctx, body as { name: string })),
  }),
  route({
    method: "delete",
    path: "/datasets/:datasetId",
    summary: "Delete a dataset and its entries",
    tag: "Datasets",
    auth: "project",
    response: { schema: W.DeletionWire },
    errors: [401, 404],
    handler: async ({ ctx, params }) => deletedToWire((await deleteDataset(ctx, { datasetId: params.datasetId })).id, "dataset"),
  }),
  route({
    method: "post",
    path: "/datasets/:datasetId/entries",
    summary: "Add 1 to 100 entries; invalid ones are reported by index while the valid ones are stored",
    tag: "Datasets",
    auth: "project",
    body: {
      schema: AddDatasetEntriesInput.omit({ datasetId: true }).extend({ entries: z.array(DatasetEntryInput).min(1).max(100) }),
      read: "object",
    },
    response: { schema: W.EntriesCreationWire },
    errors: [400, 401, 404],
    handler: async ({ ctx, params, body }) => entriesCreationToWire(await addDatasetEntries(ctx, { ...body, datasetId: params.datasetId })),
  }),
  route({
    method: "post",
    path: "/datasets/:datasetId/import",
    summary: "Import a JSONL file (raw application/x-ndjson body or a multipart file field), streamed",
    tag: "Datasets",
    auth: "project",
    body: { schema: DatasetEntryInput, read: "stream", contentType: "application/x-ndjson" },
    maxBodyBytes: (config) => config.maxImportBytes,
    response: { schema: W.ImportWire },
    errors: [400, 401, 404, 413],
    handler: async ({ ctx, deps, request, params }) => {
      const type = request.headers.get("content-type") ?? "";
      const chunks = type.startsWith("multipart/form-data") ? multipartFileChunks(request) : ((request.body ?? []) as AsyncIterable<Uint8Array>);
      // A project's imports run a few at a time (HONE_PROJECT_CONCURRENCY), each waiting its turn or refused with 429.
      const r = await deps.fairShare.run(ctx.projectId, "import", () =>
        importDatasetJsonl(ctx, { datasetId: params.datasetId, lines: collecting(linesOf(chunks, deps.config.maxImportBytes)) }),
      );
      return {
        object: "dataset.import" as const,
        entries_created: r.entriesCreated,
        error_count: r.errorCount,
        errors: { object: "list" as const, data: r.errors.map((e) => ({ object: "dataset.import.error" as const, line: e.line, message: e.message })) },
      };
    },
  }),
  route({
    method: "get",
    path: "/datasets/:datasetId/export",
    summary: "Export the entries as JSONL, streamed",
    tag: "Datasets",
    auth: "project",
    query: {
      split: { schema: z.enum(["TRAIN", "TEST"]), description: "only this split" },
      criterion: { schema: z.string(), description: "with judgement: only entries whose latest verdict of this criterion is the judgement" },
      judgement: {
        schema: z.enum(["PASS", "FAIL", "ERROR", "NONE"]),
        description: "see criterion (default PASS); ERROR: the judge gave no judgement; NONE: never judged by the criterion",
      },
      includeVerdicts: {
        schema: z.enum(["true", "false"]),
        description: "true: each row also carries `verdicts`, the latest verdict of every criterion that judged the entry ([] when none)",
      },
      format: {
        schema: z.enum(["chat", "preference"]),
        description:
          "chat (default): fine-tuning rows; preference: OpenAI's DPO lines {input: {messages, tools?}, preferred_output, non_preferred_output}, one per rejected output of an entry",
      },
    },
    response: { schema: z.union([W.ExportRowWire, W.PreferenceRowWire]), contentType: "application/x-ndjson" },
    errors: [400, 401, 404],
    handler: async ({ ctx, deps, request, params, query }) => {
      // A project's exports run a few at a time (HONE_PROJECT_CONCURRENCY): the slot is held until the file ends.
      const release = await deps.fairShare.acquire(ctx.projectId, "export");
      const rows = await heldUntilDone(release, () =>
        exportDataset(ctx, {
          datasetId: params.datasetId,
          split: query.split ?? null,
          // ?criterion=crit_…&judgement=PASS|FAIL keeps the entries with that latest verdict.
          verdict: query.criterion ? { criterionId: query.criterion, judgement: query.judgement ?? "PASS" } : null,
          // Opt-in, so the default rows stay exactly the fine-tuning format.
          includeVerdicts: query.includeVerdicts ?? null,
          format: query.format ?? null,
        }),
      );
      const encoder = new TextEncoder();
      let written = 0;
      const pacer = createPacer();
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            // Rows go out in writes of up to 200 rows or 256 KB: few syscalls, little held in memory
            // (an entry of megabytes is a write of its own).
            let text = "";
            for (let i = 0; i < 200 && text.length < 256 * 1024; i++) {
              const { done, value } = await rows.next();
              if (done) {
                if (text) controller.enqueue(encoder.encode(text));
                controller.close();
                release();
                return;
              }
              text += `${JSON.stringify(value)}\n`;
            }
            written += text.length;
            pacer.count(text.length);
            controller.enqueue(encoder.encode(text));
          } catch (err) {
            deps.logger.error("dataset export failed mid-stream", { requestId: requestMeta(request).requestId, written, ...errorFields(err) });
            release();
            controller.error(err);
          }
        },
        async cancel() {
          release();
          await rows.return(undefined);
        },
      });
      return new Response(stream, {
        headers: {
          "content-type": "application/x-ndjson; charset=utf-8",
          "content-disposition": `attachment; filename="${params.datasetId}.jsonl"`,
        },
      });
    },
  }),
];
