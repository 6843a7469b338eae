import {
  deleteMaskingRecognizer,
  deleteMaskingRule,
  listMaskingKinds,
  listMaskingRecognizers,
  listMaskingRules,
  type MaskingRule,
  type OwnRecognizer,
  setMaskingRecognizer,
  setMaskingRule,
  testMasking,
} from "../../domain/masking";
import { maskedUsage } from "../../domain/logs";
import { getMaskingBackfill, listMaskingBackfills, type MaskingBackfill, startMaskingBackfill } from "../../domain/mask-backfill";
import { toWireDate } from "../dates";
import { MaskedKindUsageRef, MaskingBackfillRef, MaskingKindRef, MaskingRecognizerRef, MaskingRuleRef, MaskingTestRef } from "../graphql/types/masking";
import { verbField } from "../graphql/verb-field";
import { verbMutation, verbQuery } from "../trpc/verb-procedure";

// The masking area's verbs on tRPC and GraphQL, a line each (docs/architecture.md "Adding a verb").

const backfillOut = (b: MaskingBackfill) => ({ ...b, createdAt: toWireDate(b.createdAt), updatedAt: toWireDate(b.updatedAt) });
const ownOut = <T extends OwnRecognizer>(r: T) => ({ ...r, createdAt: toWireDate(r.createdAt), updatedAt: toWireDate(r.updatedAt) });
const ruleOut = (r: MaskingRule) => ({ ...r, createdAt: toWireDate(r.createdAt), updatedAt: toWireDate(r.updatedAt) });

/** tRPC `masking.*`. */
export const maskingProcedures = {
  rules: verbQuery(listMaskingRules, (list) => list.map(ruleOut)),
  set: verbMutation(setMaskingRule, ruleOut),
  delete: verbMutation(deleteMaskingRule),
  test: verbQuery(testMasking),
  /** Masks what was stored before the rule, in the background. */
  backfill: verbMutation(startMaskingBackfill, backfillOut),
  backfillStatus: verbQuery(getMaskingBackfill, backfillOut),
  backfills: verbQuery(listMaskingBackfills, (list) => list.map(backfillOut)),
  /** The project's own recognizers. */
  recognizers: verbQuery(listMaskingRecognizers, (list) => list.map(ownOut)),
  setRecognizer: verbMutation(setMaskingRecognizer, ownOut),
  deleteRecognizer: verbMutation(deleteMaskingRecognizer),
  /** What masking kept out of the logs in a window, by kind. */
  usage: verbQuery(maskedUsage),
  /** Every kind a rule may name. */
  kinds: verbQuery(listMaskingKinds),
};

/** GraphQL: fields named as the verbs. */
export function maskingFields(): void {
  verbField(listMaskingRules, { type: [MaskingRuleRef] });
  verbField(setMaskingRule, { type: MaskingRuleRef });
  verbField(deleteMaskingRule, { type: "Boolean", out: (d) => d.deleted });
  verbField(testMasking, { type: MaskingTestRef });
  verbField(startMaskingBackfill, { type: MaskingBackfillRef });
  verbField(getMaskingBackfill, { type: MaskingBackfillRef });
  verbField(listMaskingBackfills, { type: [MaskingBackfillRef] });
  verbField(listMaskingRecognizers, { type: [MaskingRecognizerRef] });
  verbField(setMaskingRecognizer, { type: MaskingRecognizerRef });
  verbField(deleteMaskingRecognizer, { type: "Boolean", out: (d) => d.deleted });
  verbField(maskedUsage, { type: [MaskedKindUsageRef] });
  verbField(listMaskingKinds, { type: [MaskingKindRef] });
}
