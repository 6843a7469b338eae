import type { MaskingKind, MaskingRule, MaskingTest, OwnRecognizer } from "../../../domain/masking";
import type { MaskedKindUsage } from "../../../domain/logs";
import type { MaskingBackfill } from "../../../domain/mask-backfill";
import { builder } from "../builder";

// Masking (domain/masking): the project's rules and what the recognizers find in a text.

export const MaskingRuleRef = builder.objectRef<MaskingRule>("MaskingRule").implement({
  description: "How calls are masked: the project's rule, or one narrowing it for a key or a model (the strictest that applies masks a call)",
  fields: (t) => ({
    id: t.exposeID("id"),
    scope: t.exposeString("scope", { description: "project, key or model" }),
    subject: t.exposeString("subject", { nullable: true, description: "The key's id or the model string (a route: hone:<slug>); null for the project's rule" }),
    mode: t.exposeString("mode", {
      description:
        "off; mask_stored (placeholders in everything stored); mask_upstream (placeholders sent to the provider too, the answer restored); block (refused)",
    }),
    kinds: t.exposeStringList("kinds", { nullable: true, description: "The kinds masked; null: every built-in kind" }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (r) => r.updatedAt }),
  }),
});

type Found = MaskingTest["found"][number];
const MaskingFoundRef = builder.objectRef<Found>("MaskingFound").implement({
  description: "A value the recognizers found: its kind, where it is in the text (UTF-16 offsets) and its placeholder",
  fields: (t) => ({
    kind: t.exposeString("kind"),
    start: t.exposeInt("start"),
    end: t.exposeInt("end"),
    placeholder: t.exposeString("placeholder"),
  }),
});

export const MaskedKindRef = builder.objectRef<{ kind: string; count: number }>("MaskedKind").implement({
  description: "How many values of one kind were masked (never the values)",
  fields: (t) => ({ kind: t.exposeString("kind"), count: t.exposeInt("count") }),
});

export const MaskingTestRef = builder.objectRef<MaskingTest>("MaskingTest").implement({
  description: "What masking would make of a text (nothing is stored)",
  fields: (t) => ({
    masked: t.exposeString("masked", { description: "The text as it would be stored" }),
    found: t.field({ type: [MaskingFoundRef], resolve: (r) => r.found }),
    counts: t.field({ type: [MaskedKindRef], resolve: (r) => r.counts }),
    analyzer: t.exposeString("analyzer", {
      nullable: true,
      description:
        "The operator's external analyzer (names, places): null when there is none, ok when it read the text, otherwise why it did not (the text was masked without it)",
    }),
  }),
});

export const MaskingBackfillRef = builder.objectRef<MaskingBackfill>("MaskingBackfill").implement({
  description: "Masking what the project stored before its rule: logs, then dataset entries, then stored Responses",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status", { description: "QUEUED, RUNNING, DONE or ERROR" }),
    phase: t.exposeString("phase", { description: "logs, entries, responses or spans: what it is going through" }),
    kinds: t.exposeStringList("kinds", { nullable: true, description: "The kinds masked; null: every built-in kind" }),
    total: t.exposeInt("total", { description: "Logs, entries and stored Responses there were when it started" }),
    done: t.exposeInt("done", { description: "Rows read so far" }),
    changed: t.exposeInt("changed", { description: "Of those, rows that held something to mask" }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (b) => b.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (b) => b.updatedAt }),
  }),
});

export const MaskingRecognizerRef = builder.objectRef<OwnRecognizer & { found?: string[] }>("MaskingRecognizer").implement({
  description: "One of the project's own masking recognizers: a kind's name and a regular expression shown safe from catastrophic backtracking",
  fields: (t) => ({
    id: t.exposeID("id"),
    kind: t.exposeString("kind", { description: "The placeholder's name: <KIND_1>" }),
    pattern: t.exposeString("pattern"),
    found: t.stringList({
      nullable: true,
      description: "What it found in the sample it was set with (on setMaskingRecognizer only)",
      resolve: (r) => r.found ?? null,
    }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (r) => r.updatedAt }),
  }),
});

export const MaskedKindUsageRef = builder.objectRef<MaskedKindUsage>("MaskedKindUsage").implement({
  description: "What masking kept out of the logs of a window for one kind (never the values)",
  fields: (t) => ({
    kind: t.exposeString("kind"),
    logs: t.exposeInt("logs", { description: "Logs holding at least one value of the kind" }),
    values: t.exposeFloat("values", { description: "Values of the kind masked" }),
  }),
});

export const MaskingKindRef = builder.objectRef<MaskingKind>("MaskingKind").implement({
  description: "A kind a masking rule may name",
  fields: (t) => ({
    kind: t.exposeString("kind"),
    source: t.exposeString("source", { description: "built-in, analyzer (the operator's external analyzer) or project (the project's own recognizer)" }),
    description: t.exposeString("description", { description: "What it finds, in words" }),
  }),
});
