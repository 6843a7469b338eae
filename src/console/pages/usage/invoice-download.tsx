import { Button } from "@mantine/core";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { type InvoiceLine, useFetchInvoiceLines } from "./queries";

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const cell = (v: string | number | null) => {
  if (v === null) return "";
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

function csvOf(lines: InvoiceLine[]): string {
  const rows = lines.map((l) => [l.day, l.provider, l.model, l.tokenClass, l.tokens, l.costUsd].map(cell).join(","));
  return `${["day,provider,model,token_class,tokens,cost_usd", ...rows].join("\r\n")}\r\n`;
}

/** Downloads the whole UTC days the range touches as invoice lines (a line per day, provider, model and token class), CSV. */
export function InvoiceDownload({ from, to }: { from: Date; to: Date }) {
  const fetchLines = useFetchInvoiceLines();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const first = Math.floor(from.getTime() / DAY_MS) * DAY_MS;
  const last = Math.ceil(to.getTime() / DAY_MS) * DAY_MS;
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      // A page at a time (the server's largest, HONE_MAX_PAGE_SIZE), each after the last line of
      // the one before, until one comes back empty.
      const lines: InvoiceLine[] = [];
      for (let after: string | undefined; ; ) {
        const page = await fetchLines({ from: day(first), to: day(last), after });
        if (!page.length) break;
        lines.push(...page);
        after = page.at(-1)!.cursor;
      }
      const url = URL.createObjectURL(new Blob([csvOf(lines)], { type: "text/csv" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `invoice-lines-${day(first)}-to-${day(last - DAY_MS)}.csv`;
      a.click();
      URL.revokeObjectURL(url);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button variant="default" size="xs" onClick={download} loading={busy} data-testid="invoice-download">
        Invoice lines, {day(first)} to {day(last - DAY_MS)} (CSV)
      </Button>
      <ErrorAlert error={error} title="The invoice lines could not be read" />
    </>
  );
}
