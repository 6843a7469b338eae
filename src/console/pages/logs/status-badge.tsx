/** How a status reads: its tone (for the colour) and its words (for assistive technology). */
export function statusTone(code: number | null | undefined): "ok" | "redirect" | "client" | "server" | "none" {
  if (code == null || code === 0) return "none";
  if (code < 300) return "ok";
  if (code < 400) return "redirect";
  if (code < 500) return "client";
  return "server";
}

/**
 * A status as text and colour: "200", "429", or "—" when the call got no HTTP status. Its styles
 * are in TABLE_CSS (the logs page and the drawer both load them).
 */
export function StatusBadge({ code }: { code: number | null | undefined }) {
  const none = code == null || code === 0;
  return (
    <span className="hone-status" data-tone={statusTone(code)} role="img" aria-label={none ? "no status" : `status ${code}`}>
      {none ? "—" : code}
    </span>
  );
}

/** Why Hone refused a call, in words. */
export const REFUSAL_LABELS: Record<string, string> = {
  rate_limit: "a rate limit",
  budget: "a budget",
  unpriced: "a cost limit (no price for the model)",
  model: "a model this key may not call",
  scope: "a scope this key lacks",
  masking: "the masking rule (sensitive data in the call)",
};

/** Beside a refused call's status: that Hone refused it (why, on hover), and how many calls a folded row counts. */
export function RefusedMark({ kind, count }: { kind: string; count: number | null }) {
  return (
    <span className="hone-refused" title={`Refused by Hone: ${REFUSAL_LABELS[kind] ?? kind}; not sent upstream, not charged`} data-testid="refused-mark">
      {count && count > 1 ? `refused ×${count}` : "refused"}
    </span>
  );
}
