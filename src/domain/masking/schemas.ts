import { z } from "zod";
import { MAX_ID_LENGTH, MAX_MODEL_LENGTH } from "../../core/limits";
import { BUILT_IN_KINDS } from "../../lib/masking";

// Masking rules: how a project keeps sensitive values out of what Hone stores and sends.

/** Least to most strict: off; placeholders in what is stored; placeholders sent to the provider too; the call refused. */
export const MASKING_MODES = ["off", "mask_stored", "mask_upstream", "block"] as const;
export type MaskingMode = (typeof MASKING_MODES)[number];

export const MASKING_SCOPES = ["project", "key", "model"] as const;
export type MaskingScope = (typeof MASKING_SCOPES)[number];

export type MaskingRule = {
  id: string;
  scope: MaskingScope;
  /** The key's id or the model string (a route: hone:<slug>); null for the project's rule. */
  subject: string | null;
  mode: MaskingMode;
  /** The kinds masked; null: every built-in kind. */
  kinds: string[] | null;
  createdAt: Date;
  updatedAt: Date;
};

/** What masks one call: its mode and kinds (null: every kind), and the rule that set them. */
export type Masking = { mode: MaskingMode; kinds: string[] | null };

const Kinds = z
  .array(z.enum(BUILT_IN_KINDS as [string, ...string[]], { error: `kinds must be among ${BUILT_IN_KINDS.join(", ")}` }))
  .min(1, "kinds must name at least one kind (or be null: every kind)")
  .max(BUILT_IN_KINDS.length);

export const SetMaskingRuleInput = z
  .strictObject({
    /** project (the default), key or model. */
    scope: z.enum(MASKING_SCOPES, { error: "scope must be project, key or model" }).nullish(),
    /** The key's id (scope key) or the model string (scope model; a route is hone:<slug>). */
    subject: z.string().trim().min(1).max(Math.max(MAX_ID_LENGTH, MAX_MODEL_LENGTH)).nullish(),
    mode: z.enum(MASKING_MODES, { error: `mode must be one of ${MASKING_MODES.join(", ")}` }),
    kinds: Kinds.nullish(),
  })
  .superRefine((v, c) => {
    const scope = v.scope ?? "project";
    if (scope === "project" && v.subject) c.addIssue({ code: "custom", path: ["subject"], message: "the project's rule takes no subject" });
    if (scope !== "project" && !v.subject)
      c.addIssue({ code: "custom", path: ["subject"], message: `a ${scope} rule needs a subject: the ${scope === "key" ? "key's id" : "model string"}` });
  });
export type SetMaskingRuleInput = z.input<typeof SetMaskingRuleInput>;

export const MaskingRuleIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH) });
export type MaskingRuleIdInput = z.input<typeof MaskingRuleIdInput>;

/** Text to try the recognizers on (the settings page's try-it box): at most 64 KB. */
export const TestMaskingInput = z.strictObject({
  text: z.string().max(65_536, "text may be at most 65,536 characters"),
  kinds: Kinds.nullish(),
});
export type TestMaskingInput = z.input<typeof TestMaskingInput>;

export type MaskingTest = {
  /** The text as it would be stored. */
  masked: string;
  /** Each value found: its kind, where it is in the text, and its placeholder. */
  found: { kind: string; start: number; end: number; placeholder: string }[];
  counts: { kind: string; count: number }[];
};
