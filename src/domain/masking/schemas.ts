import { z } from "zod";
import { MAX_ID_LENGTH, MAX_MODEL_LENGTH } from "../../core/limits";
import { BUILT_IN_KINDS, type Recognizer } from "../../lib/masking";

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

/** What masks one call: its mode, its kinds (null: every kind), and the recognizers (the built-in ones and the project's own). */
export type Masking = { mode: MaskingMode; kinds: string[] | null; recognizers: readonly Recognizer[] };

/** Kinds by name: the built-in ones and the project's own (checked against them where they are used). */
const Kinds = z
  .array(z.string().regex(/^[A-Z][A-Z0-9_]{1,30}$/, `a kind is a name in capitals: ${BUILT_IN_KINDS.slice(0, 4).join(", ")}, … or one of the project's own`))
  .min(1, "kinds must name at least one kind (or be null: every kind)")
  .max(100);

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
  /** The external analyzer: null without one, "ok" when it read the text, else why it did not. */
  analyzer: string | null;
};
