import { z } from "zod";
import { MAX_ID_LENGTH } from "../../core/limits";

// The trainer API (docs/fine-tuning.md "The trainer API"): what `hone-trainer work` sends.

const Name = z.string().trim().min(1).max(200);

export const LeaseInput = z.strictObject({
  trainer: z.strictObject({
    name: Name,
    host: Name,
    gpus: z.array(z.strictObject({ name: z.string().max(200), memoryBytes: z.number().int().min(0).nullable() })).max(64),
    versions: z.record(z.string().max(64), z.string().max(100)).refine((v) => Object.keys(v).length <= 20, "at most 20 versions"),
  }),
});
export type LeaseInput = z.input<typeof LeaseInput>;

const LeaseId = z.string().min(1).max(MAX_ID_LENGTH);
export const JobRef = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH), leaseId: LeaseId });
export type JobRef = z.input<typeof JobRef>;

const Figure = z.number().finite().nullable();
export const TrainingEvent = z.strictObject({
  step: z.number().int().min(0).max(100_000_000),
  totalSteps: z.number().int().min(0).max(100_000_000),
  loss: Figure,
  evalLoss: Figure,
  learningRate: Figure,
  tokensPerSecond: Figure,
  etaSeconds: Figure,
  gpuMemoryBytes: z.number().int().min(0).nullable(),
});
export type TrainingEvent = z.output<typeof TrainingEvent>;

export const HeartbeatInput = z.strictObject({ leaseId: LeaseId, events: z.array(TrainingEvent).max(100, "at most 100 events a heartbeat") });
export type HeartbeatInput = z.input<typeof HeartbeatInput>;

/** A path under a model's folder: relative, segments of letters, digits, dots, dashes and underscores, no `..`. */
export const ArtifactPath = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[A-Za-z0-9._/-]+$/, "a file path has letters, digits, `.`, `-`, `_` and `/` only")
  .refine(
    (p) => p.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".."),
    "a file path is relative, without empty, `.` or `..` segments",
  );

export const ArtifactFile = z.strictObject({
  path: ArtifactPath,
  sha256: z
    .string()
    .length(64, "sha256 is 64 lowercase hex digits")
    .regex(/^[0-9a-f]+$/, "sha256 is 64 lowercase hex digits"),
  bytes: z.number().int().min(0),
});

export const FileKind = z.enum(["checkpoint", "result"], { error: "the kind of a file is checkpoint or result" });
export type FileKind = z.output<typeof FileKind>;

export const CheckpointInput = z.strictObject({ leaseId: LeaseId, step: z.number().int().min(0), files: z.array(ArtifactFile).min(1).max(1_000) });
export type CheckpointInput = z.input<typeof CheckpointInput>;

export const DoneInput = z.strictObject({
  leaseId: LeaseId,
  files: z.array(ArtifactFile).min(1).max(1_000),
  dropped: z.strictObject({ train: z.number().int().min(0), test: z.number().int().min(0) }),
  metrics: z.strictObject({ evalLoss: Figure, trainLoss: Figure }),
});
export type DoneInput = z.input<typeof DoneInput>;

export const FailInput = z.strictObject({ leaseId: LeaseId, error: z.string().min(1).max(4000), cancelled: z.boolean().optional() });
export type FailInput = z.input<typeof FailInput>;

/** A job as a trainer gets it with its lease. */
export type TrainingJob = {
  id: string;
  leaseId: string;
  leaseSeconds: number;
  slug: string;
  method: "sft" | "dpo";
  baseModel: string;
  settings: Record<string, unknown>;
  entries: { train: number; test: number };
  resumeFrom: { step: number; files: { path: string; sha256: string; bytes: number }[] } | null;
};

/** What `hone-trainer sync` reports of the vLLM server it runs beside (docs/fine-tuning.md). */
export const ServingReportInput = z.strictObject({
  vllmUrl: z
    .string()
    .max(2000)
    .pipe(z.url({ protocol: /^https?$/, error: "vllmUrl must be an http(s) URL" })),
  provider: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "provider is a custom provider's slug")
    .nullish(),
  host: z.string().trim().max(200).nullish(),
  served: z
    .array(z.strictObject({ id: z.string().min(1).max(500), parent: z.string().max(500).nullish(), root: z.string().max(4096).nullish() }))
    .max(1_000, "at most 1,000 served models"),
  error: z.string().max(2000).nullish(),
});
export type ServingReportInput = z.input<typeof ServingReportInput>;

/** The adapters a vLLM server should have loaded, with their files (paths inside the adapter's folder). */
export type ServingPlan = {
  provider: { slug: string; baseModel: string };
  adapters: { name: string; slug: string; files: { path: string; sha256: string; bytes: number }[] }[];
  intervalSeconds: number;
};
