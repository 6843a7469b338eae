import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import {
  addDatasetEntries,
  createDataset,
  deleteDataset,
  exportDataset,
  importDatasetJsonl,
  listDatasets,
} from "../../domain/datasets";
import { errorFields } from "../../logger";
import { requestMeta } from "../request-meta";
import { linesOf, multipartFileChunks } from "./lines";
import { authenticateRequest } from "../auth";
import { readJsonBody } from "./body";
import { asObject, datasetToWire, deletedToWire, entriesCreationToWire, listToWire } from "./wire";

export function datasetsRoutes(deps: Deps) {
  const max = deps.config.maxBodyBytes;
  return new Elysia({ name: "rest-datasets" })
    .get("/datasets", async ({ request }) => {
      const ctx = await authenticateRequest(deps, request);
      return listToWire((await listDatasets(ctx)).map(datasetToWire));
    })
    .post(
      "/datasets",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        const body = asObject(await readJsonBody(request, max));
        return datasetToWire(await createDataset(ctx, body as { name: string }));
      },
      { parse: "none" },
    )
    .delete("/datasets/:datasetId", async ({ request, params }) => {
      const ctx = await authenticateRequest(deps, request);
      const { id } = await deleteDataset(ctx, { datasetId: params.datasetId });
      return deletedToWire(id, "dataset");
    })
    .post(
      "/datasets/:datasetId/entries",
      async ({ request, params }) => {
        const ctx = await authenticateRequest(deps, request);
        const body = asObject(await readJsonBody(request, max));
        const result = await addDatasetEntries(ctx, { ...body, datasetId: params.datasetId } as never);
        return entriesCreationToWire(result);
      },
      { parse: "none" },
    )
    .post(
      "/datasets/:datasetId/import",
      async ({ request, params }) => {
        const ctx = await authenticateRequest(deps, request);
        const type = request.headers.get("content-type") ?? "";
        const chunks = type.startsWith("multipart/form-data")
          ? multipartFileChunks(request)
          : ((request.body ?? []) as AsyncIterable<Uint8Array>);
        const r = await importDatasetJsonl(ctx, { datasetId: params.datasetId, lines: linesOf(chunks, deps.config.maxImportBytes) });
        return {
          object: "dataset.import" as const,
          entries_created: r.entriesCreated,
          error_count: r.errorCount,
          errors: { object: "list" as const, data: r.errors.map((e) => ({ object: "dataset.import.error" as const, line: e.line, message: e.message })) },
        };
      },
      { parse: "none" },
    )
    .get("/datasets/:datasetId/export", async ({ request, params, query }) => {
      const ctx = await authenticateRequest(deps, request);
      const q = query as Record<string, string | undefined>;
      const rows = await exportDataset(ctx, {
        datasetId: params.datasetId,
        split: q.split ?? null,
        // ?criterion=crit_…&judgement=PASS|FAIL keeps the entries with that latest verdict.
        verdict: q.criterion ? { criterionId: q.criterion, judgement: q.judgement ?? "PASS" } : null,
        // Opt-in, so the default rows stay exactly the fine-tuning format.
        includeVerdicts: q.includeVerdicts ?? null,
      });
      const encoder = new TextEncoder();
      let written = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            // Rows are garbage as soon as they are written; a light collection now and then keeps
            // the process's memory flat on long exports instead of growing until the next full GC.
            if ((written += 200) % 5_000 === 0) Bun.gc(false);
            // A few hundred rows per write keeps syscalls down without holding much in memory.
            let text = "";
            for (let i = 0; i < 200; i++) {
              const { done, value } = await rows.next();
              if (done) {
                if (text) controller.enqueue(encoder.encode(text));
                controller.close();
                return;
              }
              text += JSON.stringify(value) + "\n";
            }
            controller.enqueue(encoder.encode(text));
          } catch (err) {
            deps.logger.error("dataset export failed mid-stream", { requestId: requestMeta(request).requestId, ...errorFields(err) });
            controller.error(err);
          }
        },
        async cancel() {
          await rows.return(undefined);
        },
      });
      return new Response(stream, {
        headers: {
          "content-type": "application/x-ndjson; charset=utf-8",
          "content-disposition": `attachment; filename="${params.datasetId}.jsonl"`,
        },
      });
    });
}
