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
