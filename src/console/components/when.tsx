import { formatTime, formatUtc } from "../lib/format";

/** An instant as the browser's local time with its zone; UTC on hover (and to assistive technology as the machine-readable time). */
export function When({ value }: { value: string | Date | null | undefined }) {
  if (!value) return <>–</>;
  const iso = typeof value === "string" ? value : value.toISOString();
  return (
    <time dateTime={iso} title={formatUtc(value)}>
      {formatTime(value)}
    </time>
  );
}
