import { CreateFineTuneInput, CreateModelInput, deleteModel, findBaseModel, getModel, listModels, type Model } from "../../domain/models";
import { createFineTune, createModel } from "../../domain/fine-tunes";
import { modelWeights } from "../../domain/trainers";
import { tarSize, tarStream } from "../../lib/tar";
import { z } from "zod";
import { route } from "./route";
import { deletedToWire, PAGE_QUERY, pageOfQuery, pageToWire } from "./wire";
import * as W from "./wire-schemas";

/** The Model object of the spec; `id` is the slug, so the openai SDK's models.retrieve(slug) works. */
function modelToWire(m: Model) {
  const base = findBaseModel(m.baseModel);
  return {
    id: m.slug,
    name: m.slug,
    object: "model" as const,
    description: m.description ?? `${m.baseModel} fine-tuned on ${m.datasetId ?? "a deleted dataset"}`,
    created: m.createdAt.toISOString(),
    updated: m.updatedAt.toISOString(),
    hone: {
      baseModel: m.baseModel,
      hyperparameters: m.hyperparameters,
      method: m.method,
      dpoBeta: m.dpoBeta,
      status: m.status,
      datasetId: m.datasetId,
      errorMessage: m.errorMessage,
    },
    contextWindow: base?.contextWindow ?? null,
    maxCompletionTokens: base?.maxCompletionTokens ?? null,
    capabilities: base?.capabilities ?? ["chat"],
    // OpenPipe's shape: serving prices only.
    pricing: base ? { chatIn: base.pricing.chatIn, chatOut: base.pricing.chatOut } : null,
    owned_by: "project",
  };
}

export const modelsRoutes = [
  route({
    method: "get",
    path: "/models",
    summary: "List the project's fine-tuned models, newest first, a page at a time",
    tag: "Models",
    auth: "project",
    query: PAGE_QUERY,
    response: { schema: W.pageOf(W.ModelWire) },
    errors: [400, 401],
    handler: async ({ ctx, deps, query }) => {
      const page = pageOfQuery(query, deps.config.maxPageSize);
      return pageToWire((await listModels(ctx, page)).map(modelToWire), page.first);
    },
  }),
  route({
    method: "post",
    path: "/models",
    summary: "Train a new model from a dataset",
    tag: "Models",
    auth: "project",
    body: { schema: CreateModelInput, read: "object" },
    response: { schema: W.ModelWire },
    errors: [400, 401, 404, 409],
    handler: async ({ ctx, body }) => modelToWire(await createModel(ctx, body)),
  }),
  route({
    method: "get",
    path: "/models/:modelSlug",
    summary: "Get one model",
    tag: "Models",
    auth: "project",
    response: { schema: W.ModelWire },
    errors: [401, 404],
    handler: async ({ ctx, params }) => modelToWire(await getModel(ctx, { slug: params.modelSlug })),
  }),
  route({
    method: "delete",
    path: "/models/:modelSlug",
    summary: "Delete a model (cancelling its training)",
    tag: "Models",
    auth: "project",
    response: { schema: W.DeletionWire },
    errors: [401, 404],
    handler: async ({ ctx, params }) => deletedToWire((await deleteModel(ctx, { slug: params.modelSlug })).id, "model"),
  }),
  route({
    method: "post",
    path: "/unstable/finetune/create",
    summary: "Start a fine-tune",
    tag: "Models",
    auth: "project",
    body: { schema: CreateFineTuneInput, read: "object" },
    response: { schema: W.FineTuneCreated },
    errors: [400, 401, 404, 409],
    handler: ({ ctx, body }) => createFineTune(ctx, body),
  }),
  route({
    method: "get",
    path: "/models/:modelSlug/weights",
    summary:
      "Download a model's weights as a tar file, streamed and resumable (Range); each file's sha256 is in x-hone-files (Together's own archive is passed on as it comes)",
    tag: "Models",
    auth: "project",
    response: { schema: z.unknown(), contentType: "application/x-tar" },
    errors: [400, 401, 404, 409, 416, 502],
    handler: async ({ ctx, params, request }) => {
      const w = await modelWeights(ctx, { slug: params.modelSlug });
      if (w.kind === "archive") {
        // A backend's own archive (Together's compressed tar), passed on as it comes: no ranges.
        return new Response(w.body, {
          headers: {
            "content-type": w.contentType,
            "content-disposition": `attachment; filename="${w.slug}.${w.extension}"`,
            ...(w.bytes !== null ? { "content-length": String(w.bytes) } : {}),
          },
        });
      }
      const entries = w.files.map((f) => ({ path: `${w.slug}/${f.path}`, bytes: f.bytes, read: f.read }));
      const size = tarSize(entries);
      const listing = JSON.stringify(w.files.map((f) => ({ path: f.path, sha256: f.sha256, bytes: f.bytes })));
      // The archive is the same bytes each time (its files, their digests, the model's creation as
      // every file's time), so a download cut off resumes with Range where it stopped.
      const etag = `"${new Bun.CryptoHasher("sha256").update(listing).digest("hex").slice(0, 32)}"`;
      const ifRange = request.headers.get("if-range");
      const range = ifRange !== null && ifRange !== etag ? null : byteRange(request.headers.get("range"), size);
      const headers: Record<string, string> = {
        "content-type": "application/x-tar",
        "content-disposition": `attachment; filename="${w.slug}.tar"`,
        "accept-ranges": "bytes",
        etag,
        "x-hone-files": listing,
      };
      if (range === "unsatisfiable") {
        return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
      }
      const [start, end] = range ?? [0, size - 1];
      const archive = tarStream(entries, w.createdAt, start, end);
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await archive.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        async cancel() {
          await archive.return(undefined);
        },
      });
      headers["content-length"] = String(end - start + 1);
      if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
      return new Response(stream, { status: range ? 206 : 200, headers });
    },
  }),
];

/**
 * One byte range of a `Range: bytes=…` header (RFC 9110): [start, end] inclusive; null when there is
 * none, or several (the whole archive is sent); "unsatisfiable" when it starts past the end.
 */
function byteRange(header: string | null, size: number): [number, number] | null | "unsatisfiable" {
  const m = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    return suffix === 0 ? "unsatisfiable" : [Math.max(size - suffix, 0), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return "unsatisfiable";
  return end < start ? null : [start, end];
}
