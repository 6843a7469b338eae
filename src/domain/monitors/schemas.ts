import { z } from "zod";
import { MAX_ID_LENGTH } from "../../core/limits";
import { DatasetId } from "../datasets";
import { FilterDate, LogFilter } from "../logs";

export const MonitorId = z.string().min(1).max(MAX_ID_LENGTH);
const Name = z.string().trim().min(1, "name must not be empty").max(200, "name may be at most 200 characters");
/** A criterion reference: its id, or `<id>@v<N>` to keep one version. */
const CriterionRef = z
  .string()
  .min(1)
  .max(MAX_ID_LENGTH + 12);
const SampleRate = z.number().gt(0, "sampleRate must be above 0 (pause the monitor to stop it)").max(1, "sampleRate is a share of the calls, at most 1");
const TestFraction = z.number().min(0).max(1, "testFraction is a share of the entries, at most 1");
/** A live monitor watches new calls: a selection of log ids is a backfill's job, not a filter's. */
const MonitorFilter = LogFilter.refine((f) => f.ids == null, { message: "a monitor's filter cannot list log ids", path: ["ids"] });

export const CreateMonitorInput = z.strictObject({
  name: Name,
  /** Which calls: anything the Logs page filters by. Absent: every answered call of the application. */
  filter: MonitorFilter.nullish(),
  /** The LLM filter: a criterion judges each matched call; keepOn says which verdict keeps it. */
  criterionId: CriterionRef.nullish(),
  keepOn: z.enum(["PASS", "FAIL"]).nullish(),
  /** The share of the calls examined (1: all), decided per call by its id. */
  sampleRate: SampleRate.nullish(),
  datasetId: DatasetId,
  /** The share of the added entries that go to the TEST split (default 0.2). */
  testFraction: TestFraction.nullish(),
  /** Create it paused (it examines nothing until resumed). */
  paused: z.boolean().nullish(),
});
export type CreateMonitorInput = z.input<typeof CreateMonitorInput>;

export const UpdateMonitorInput = z.strictObject({
  id: MonitorId,
  name: Name.nullish(),
  filter: MonitorFilter.nullish(),
  /** A criterion to judge with, or null to stop judging (absent: unchanged). */
  criterionId: CriterionRef.nullish(),
  keepOn: z.enum(["PASS", "FAIL"]).nullish(),
  sampleRate: SampleRate.nullish(),
  testFraction: TestFraction.nullish(),
  status: z.enum(["ACTIVE", "PAUSED"]).nullish(),
});
export type UpdateMonitorInput = z.input<typeof UpdateMonitorInput>;

export const MonitorIdInput = z.strictObject({ id: MonitorId });

export const BackfillMonitorInput = z
  .strictObject({
    id: MonitorId,
    /** The calls made in this time range (ISO times): every one in the monitor's sample is offered to it. */
    from: FilterDate,
    to: FilterDate.nullish(),
  })
  .refine((v) => v.to == null || v.to.getTime() >= v.from.getTime(), { message: "to must not be before from", path: ["to"] });
export type BackfillMonitorInput = z.input<typeof BackfillMonitorInput>;

export type MonitorStatus = "ACTIVE" | "PAUSED";

export type Monitor = {
  id: string;
  name: string;
  filter: LogFilter;
  criterionId: string | null;
  keepOn: "PASS" | "FAIL";
  sampleRate: number;
  datasetId: string;
  testFraction: number;
  status: MonitorStatus;
  /** Why it paused itself (its criterion was deleted, ...); null otherwise. */
  lastError: string | null;
  counts: {
    /** The application's answered calls stored while it was active (each call once, before the sample). */
    seen: number;
    /** Calls in its sample that it examined. */
    sampled: number;
    /** Of those, the ones its log filter matched. */
    matched: number;
    judged: number;
    /** Judged, and the verdict did not keep them. */
    rejected: number;
    added: number;
    /** Kept, but the dataset already held the same content. */
    duplicates: number;
    /** Kept, but not a trainable call (no answer, stored cut short), or no judge could judge it. */
    invalid: number;
    /** Waiting to be examined. */
    waiting: number;
  };
  judgeCostUsd: number;
  createdAt: Date;
  updatedAt: Date;
};
