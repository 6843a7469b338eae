import { z } from "zod";
import {
  CheckpointInput,
  DoneInput,
  FailInput,
  failTrainingJob,
  finishTrainingJob,
  HeartbeatInput,
  heartbeatTrainingJob,
  LeaseInput,
  leaseTrainingJob,
  readAdapterFile,
  readCheckpointFile,
  reportServing,
  saveTrainingCheckpoint,
  ServingReportInput,
  storeTrainingFile,
  trainingJobEntries,
} from "../../domain/trainers";
import { route } from "./route";

// The trainer API: what `hone-trainer work` speaks (docs/fine-tuning.md "The trainer API"). Every
// route needs a trainer token (a key whose scope is `trainer`), and a trainer token reaches nothing else.

const TAG = "Trainers";
const LeaseQuery = { leaseId: { schema: z.string().min(1).max(200), description: "the lease the job was given with" } };

const JobWire = z.object({
  id: z.string(),
  leaseId: z.string(),
  leaseSeconds: z.number(),
  slug: z.string(),
  method: z.enum(["sft", "dpo"]),
  baseModel: z.string(),
  settings: z.record(z.string(), z.unknown()),
  entries: z.object({ train: z.number(), test: z.number() }),
  resumeFrom: z.object({ step: z.number(), files: z.array(z.object({ path: z.string(), sha256: z.string(), bytes: z.number() })) }).nullable(),
});

/** A file path below `/files/<kind>/` (the route's final `*`). */
const filePathOf = (request: Request, marker: string) => {
  const path = new URL(request.url).pathname;
  return decodeURIComponent(path.slice(path.indexOf(marker) + marker.length));
};

export const trainerRoutes = [
  route({
    method: "post",
    path: "/trainer/lease",
    summary: "Lease the next training job (one trainer a job); job null when none waits",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    body: { schema: LeaseInput, read: "object" },
    response: { schema: z.object({ job: JobWire.nullable(), retryAfterSeconds: z.number().optional() }) },
    errors: [400, 401, 403],
    handler: async ({ ctx, body }) => {
      const job = await leaseTrainingJob(ctx, body);
      return job ? { job } : { job: null, retryAfterSeconds: 5 };
    },
  }),
  route({
    method: "get",
    path: "/trainer/jobs/:id/entries",
    summary: "The leased job's entries of a split as JSON lines, streamed",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    query: { ...LeaseQuery, split: { schema: z.enum(["TRAIN", "TEST"]), description: "TRAIN (default) or TEST" } },
    response: { schema: z.record(z.string(), z.unknown()), contentType: "application/x-ndjson" },
    errors: [400, 401, 403, 409],
    handler: async ({ ctx, params, query }) => {
      const lines = trainingJobEntries(ctx, { id: params.id, leaseId: query.leaseId ?? "" }, query.split ?? "TRAIN");
      // The lease is checked before the answer starts: a lost lease is a 409, not an empty file.
      const first = await lines.next();
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          if (!first.done) controller.enqueue(encoder.encode(`${first.value}\n`));
        },
        async pull(controller) {
          let chunk = "";
          for (let i = 0; i < 200; i++) {
            const next = await lines.next();
            if (next.done) {
              if (chunk) controller.enqueue(encoder.encode(chunk));
              controller.close();
              return;
            }
            chunk += `${next.value}\n`;
          }
          controller.enqueue(encoder.encode(chunk));
        },
        async cancel() {
          await lines.return(undefined);
        },
      });
      return new Response(first.done ? "" : stream, { headers: { "content-type": "application/x-ndjson" } });
    },
  }),
  route({
    method: "post",
    path: "/trainer/jobs/:id/heartbeat",
    summary: "Renew the lease, report progress; the answer says whether to stop (cancelled)",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    body: { schema: HeartbeatInput, read: "object" },
    response: { schema: z.object({ cancel: z.boolean(), leaseSeconds: z.number() }) },
    errors: [400, 401, 403, 409],
    handler: ({ ctx, params, body }) => heartbeatTrainingJob(ctx, params.id, body),
  }),
  route({
    method: "put",
    path: "/trainer/jobs/:id/files/:kind/*",
    summary: "Upload one file of a checkpoint or of the result (raw bytes, x-hone-sha256 header)",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    query: LeaseQuery,
    headers: { "x-hone-sha256": "the file's sha256 (hex): a file that arrives otherwise is not kept" },
    body: { schema: z.unknown(), read: "stream", contentType: "application/octet-stream" },
    maxBodyBytes: (config) => config.trainers.maxFileBytes,
    response: { schema: z.object({ path: z.string(), sha256: z.string(), bytes: z.number() }) },
    errors: [400, 401, 403, 409, 413],
    handler: async ({ ctx, params, query, request }) => {
      const stored = await storeTrainingFile(
        ctx,
        { id: params.id, leaseId: query.leaseId ?? "" },
        { kind: params.kind, path: filePathOf(request, `/files/${params.kind}/`), sha256: request.headers.get("x-hone-sha256"), body: request.body },
      );
      return Response.json(stored, { status: 201 });
    },
  }),
  route({
    method: "get",
    path: "/trainer/jobs/:id/files/checkpoint/*",
    summary: "A file of the checkpoint the job resumes from",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    query: LeaseQuery,
    response: { schema: z.unknown(), contentType: "application/octet-stream" },
    errors: [401, 403, 404, 409],
    handler: async ({ ctx, params, query, request }) => {
      const f = await readCheckpointFile(ctx, { id: params.id, leaseId: query.leaseId ?? "" }, filePathOf(request, "/files/checkpoint/"));
      return new Response(f.stream, { headers: { "content-type": "application/octet-stream", "content-length": String(f.bytes), "x-hone-sha256": f.sha256 } });
    },
  }),
  route({
    method: "post",
    path: "/trainer/jobs/:id/checkpoint",
    summary: "Record an uploaded checkpoint: a job leased again resumes from it",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    body: { schema: CheckpointInput, read: "object" },
    response: { schema: z.object({ step: z.number() }) },
    errors: [400, 401, 403, 409],
    handler: ({ ctx, params, body }) => saveTrainingCheckpoint(ctx, params.id, body),
  }),
  route({
    method: "post",
    path: "/trainer/jobs/:id/done",
    summary: "Finish the job with its uploaded result: the model is DEPLOYED",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    body: { schema: DoneInput, read: "object" },
    response: { schema: z.object({ status: z.literal("DEPLOYED") }) },
    errors: [400, 401, 403, 409],
    handler: ({ ctx, params, body }) => finishTrainingJob(ctx, params.id, body),
  }),
  route({
    method: "post",
    path: "/trainer/jobs/:id/fail",
    summary: "Give the job up (or report it stopped on cancel): the model is ERROR with the reason",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    body: { schema: FailInput, read: "object" },
    response: { schema: z.object({ status: z.literal("ERROR") }) },
    errors: [400, 401, 403, 409],
    handler: ({ ctx, params, body }) => failTrainingJob(ctx, params.id, body),
  }),
  route({
    method: "post",
    path: "/trainer/serving",
    summary: "What `hone-trainer sync` reports of its vLLM server (the adapters loaded there); answers the adapters it should hold",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    body: { schema: ServingReportInput, read: "object" },
    response: {
      schema: z.object({
        provider: z.object({ slug: z.string(), baseModel: z.string() }),
        adapters: z.array(
          z.object({ name: z.string(), slug: z.string(), files: z.array(z.object({ path: z.string(), sha256: z.string(), bytes: z.number() })) }),
        ),
        intervalSeconds: z.number(),
      }),
    },
    errors: [400, 401, 403, 404],
    handler: ({ ctx, body }) => reportServing(ctx, body),
  }),
  route({
    method: "get",
    path: "/trainer/adapters/:name/files/*",
    summary: "A file of a DEPLOYED adapter (name: the model's id, as `serving` lists it)",
    tag: TAG,
    auth: "project",
    scope: "trainer",
    response: { schema: z.unknown(), contentType: "application/octet-stream" },
    errors: [401, 403, 404],
    handler: async ({ ctx, params, request }) => {
      const f = await readAdapterFile(ctx, params.name, filePathOf(request, "/files/"));
      return new Response(f.stream, { headers: { "content-type": "application/octet-stream", "content-length": String(f.bytes), "x-hone-sha256": f.sha256 } });
    },
  }),
];
