import { deleteLimit, type Limit, limitSpend, type LimitSpend, listLimits, setLimit } from "../../domain/limits";
import { toWireDate } from "../dates";
import { LimitRef, LimitSpendRef } from "../graphql/types/limits";
import { verbField } from "../graphql/verb-field";
import { verbMutation, verbQuery } from "../trpc/verb-procedure";

// The limits area's verbs on tRPC and GraphQL, a line each (docs/architecture.md "Adding a verb"):
// the input, role, audit and description come from each verb's declaration.

const limitOut = (l: Limit) => ({ ...l, createdAt: toWireDate(l.createdAt), updatedAt: toWireDate(l.updatedAt) });
const spendOut = (s: LimitSpend) => ({ ...s, windowStart: toWireDate(s.windowStart), windowEnd: toWireDate(s.windowEnd) });

/** tRPC `limits.*`. */
export const limitsProcedures = {
  list: verbQuery(listLimits, (l) => l.map(limitOut)),
  /** What each limit's current windows hold against their caps. */
  spend: verbQuery(limitSpend, (s) => s.map(spendOut)),
  set: verbMutation(setLimit, limitOut),
  delete: verbMutation(deleteLimit),
};

/** GraphQL: fields named as the verbs. */
export function limitsFields(): void {
  verbField(listLimits, { type: [LimitRef] });
  verbField(limitSpend, { type: [LimitSpendRef] });
  verbField(setLimit, { type: LimitRef });
  verbField(deleteLimit, { type: "String", out: (d) => d.id });
}
