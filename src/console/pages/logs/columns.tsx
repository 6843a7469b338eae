import { Highlight, Text } from "@mantine/core";
import type { CellContext, ColumnDef } from "@tanstack/react-table";
import { formatCost, formatLocal, formatMs, formatNumber, formatTime, formatUtc } from "../../lib/format";
import { FilterValue, type OnFilter } from "./cell-filter";
import type { LogRow } from "./queries";
import { SOURCE_LABELS } from "./search";
import { RefusedMark, StatusBadge } from "./status-badge";

/**
 * A column's layout: its width (the least it takes when it grows), and its priority when the
 * window is too narrow for every chosen column (the lowest goes first; KEEP never goes).
 */
/**
 * `grow`: its share of the free width; `roomy`: the width it wants before the minor columns (priority
 * MINOR or less: tokens, API, provider, cache) are shown beside it.
 */
export type ColumnMeta = { width: number; align?: "right"; label: string; grow?: number; roomy?: number; priority: number };

/** Columns of this priority or less are shown only when the previews have their roomy width. */
const MINOR = 2;
export const KEEP = Number.POSITIVE_INFINITY;

/** What cells need from the page: the filter action and the search term to highlight. */
export type TableMeta = { onFilter: OnFilter; q: string | undefined };
const metaOf = (c: CellContext<LogRow, unknown>) => c.table.options.meta as TableMeta;

/** A source as the table names it: "gateway", or "internal · judge" for Hone's own calls. */
export function sourceLabel(log: Pick<LogRow, "source" | "internalKind">): string {
  if (log.source === "internal") return log.internalKind ? `internal · ${log.internalKind}` : "internal";
  return SOURCE_LABELS[log.source] ?? log.source;
}

/** Month, day and time (the year is in the tooltip): narrow enough for small windows. */
function shortTime(iso: string): string {
  return formatLocal(iso).slice(5);
}

/** Why a cost is missing, as the table and the drawer say it. */
export const COST_FLAGS: Record<string, { label: string; why: string }> = {
  no_price: { label: "no price", why: "No price is known for this model (a custom provider or an unknown model name): the cost is not $0, it is unknown." },
  no_usage: { label: "no usage", why: "The answer carried no token counts, so its cost could not be reckoned." },
};

function CostCell({ usd, flag }: { usd: number | null; flag: string | null }) {
  const flagged = flag ? COST_FLAGS[flag] : undefined;
  if (flagged) {
    return (
      <Text component="span" size="xs" c="orange.8" fw={600} title={flagged.why} data-testid="cost-flag">
        {flagged.label}
      </Text>
    );
  }
  const exact = formatCost(usd);
  const short = usd != null && usd > 0 && usd < 0.0001 ? "<$0.0001" : exact;
  return <span title={usd != null ? `$${usd}` : undefined}>{short}</span>;
}

/** A preview (the last user message, the first answer), cut to the cell; the search term marked. */
function PreviewCell({ text, q, error }: { text: string | null; q: string | undefined; error?: string | null }) {
  // A call that failed has no answer: its error is what to see in the row.
  if (!text && error) {
    return (
      <Text component="span" size="sm" c="red.8" truncate="end" title={error} style={{ display: "block" }} data-testid="output-error">
        {error}
      </Text>
    );
  }
  if (!text) return <span title="none">–</span>;
  const common = { component: "span" as const, size: "sm", truncate: "end" as const, title: text, style: { display: "block" } };
  return q ? (
    <Highlight {...common} highlight={q}>
      {text}
    </Highlight>
  ) : (
    <Text {...common}>{text}</Text>
  );
}

const meta = (m: ColumnMeta) => m;

/** A cell showing a text the row can be filtered by (its menu offers "is" and "is not"), or "–". */
const filterableText = (field: "model" | "provider", text: (r: LogRow) => string | null) => (c: CellContext<LogRow, unknown>) => {
  const value = text(c.row.original);
  return value ? (
    <FilterValue field={field} value={value} onFilter={metaOf(c).onFilter}>
      {value}
    </FilterValue>
  ) : (
    "–"
  );
};

export const COLUMNS: ColumnDef<LogRow>[] = [
  {
    id: "time",
    header: "Requested",
    meta: meta({ width: 120, label: "Requested (time)", priority: KEEP }),
    cell: ({ row }) => {
      const at = row.original.requestedAt ?? row.original.createdAt;
      return <span title={`Requested ${formatTime(at)} (${formatUtc(at)}), logged ${formatTime(row.original.createdAt)}`}>{shortTime(at)}</span>;
    },
  },
  {
    id: "status",
    header: "Status",
    meta: meta({ width: 60, label: "Status", priority: KEEP }),
    cell: (c) => {
      const code = c.row.original.statusCode;
      return (
        <FilterValue field="status" value={code == null || code === 0 ? "none" : String(code)} onFilter={metaOf(c).onFilter}>
          <StatusBadge code={code} />
        </FilterValue>
      );
    },
  },
  {
    id: "model",
    header: "Model",
    meta: meta({ width: 140, label: "Model", priority: KEEP }),
    cell: filterableText("model", (r) => r.model),
  },
  {
    id: "input",
    header: "Input",
    // The previews take all the free width; the minor columns come only once they have 240 px each.
    meta: meta({ width: 120, roomy: 240, label: "Input (preview)", grow: 1, priority: 6 }),
    cell: (c) => <PreviewCell text={c.row.original.inputPreview} q={metaOf(c).q} />,
  },
  {
    id: "output",
    header: "Output",
    meta: meta({ width: 120, roomy: 240, label: "Output (preview)", grow: 1, priority: 5 }),
    cell: (c) => {
      const r = c.row.original;
      const failed = r.statusCode == null || r.statusCode === 0 || r.statusCode >= 400;
      const preview = <PreviewCell text={r.outputPreview} q={metaOf(c).q} error={failed ? r.errorMessage : null} />;
      // A call Hone refused says so before its error (the reason on hover).
      return r.refusal ? (
        <span style={{ display: "flex", alignItems: "baseline", minWidth: 0 }}>
          <RefusedMark kind={r.refusal} count={r.refusals} />
          <span style={{ minWidth: 0, flex: 1 }}>{preview}</span>
        </span>
      ) : (
        preview
      );
    },
  },
  {
    id: "latency",
    header: "Latency",
    meta: meta({ width: 70, align: "right", label: "Latency", priority: KEEP }),
    cell: ({ row }) => formatMs(row.original.durationMs),
  },
  {
    id: "cost",
    header: "Cost",
    meta: meta({ width: 86, align: "right", label: "Cost", priority: KEEP }),
    cell: ({ row }) => <CostCell usd={row.original.costUsd} flag={row.original.costFlag} />,
  },
  {
    id: "source",
    header: "Source",
    meta: meta({ width: 124, label: "Source", priority: 4 }),
    cell: (c) => (
      <FilterValue field="source" value={c.row.original.source} onFilter={metaOf(c).onFilter}>
        {sourceLabel(c.row.original)}
      </FilterValue>
    ),
  },
  {
    id: "api",
    header: "API",
    meta: meta({ width: 96, label: "API (protocol)", priority: 1 }),
    cell: (c) => (
      <FilterValue field="api" value={c.row.original.api} onFilter={metaOf(c).onFilter}>
        {c.row.original.api}
      </FilterValue>
    ),
  },
  {
    id: "tags",
    header: "Tags",
    meta: meta({ width: 110, label: "Tags", priority: 3 }),
    cell: (c) => {
      const entries = Object.entries(c.row.original.tags);
      if (!entries.length) return null;
      const all = entries.map(([k, v]) => `${k}=${v}`);
      return (
        <Text size="xs" component="span" truncate="end" title={all.join("  ")} style={{ display: "block" }}>
          {all.map((pair) => (
            <FilterValue key={pair} field="tag" value={pair} onFilter={metaOf(c).onFilter} className="hone-tag-value">
              {pair}
            </FilterValue>
          ))}
        </Text>
      );
    },
  },
  {
    id: "tokensIn",
    header: "In",
    meta: meta({ width: 56, align: "right", label: "Tokens in", priority: 2 }),
    cell: ({ row }) => formatNumber(row.original.inputTokens),
  },
  {
    id: "tokensOut",
    header: "Out",
    meta: meta({ width: 56, align: "right", label: "Tokens out", priority: 2 }),
    cell: ({ row }) => formatNumber(row.original.outputTokens),
  },
  {
    id: "provider",
    header: "Provider",
    meta: meta({ width: 96, label: "Provider", priority: 1 }),
    cell: filterableText("provider", (r) => r.provider),
  },
  { id: "cache", header: "Cache", meta: meta({ width: 56, label: "Cache hit", priority: 2 }), cell: ({ row }) => (row.original.cacheHit ? "hit" : "") },
];

export const COLUMN_META = new Map(COLUMNS.map((c) => [c.id!, c.meta as ColumnMeta]));
export const COLUMN_LABELS = COLUMNS.map((c) => ({ id: c.id!, label: (c.meta as ColumnMeta).label }));

/**
 * The columns that fit `width` px: the chosen ones, less the lowest-priority ones (the last of
 * equals first) until the rest fit. `fixed` is what the row takes besides the columns.
 */
export function fitColumns(chosen: string[], width: number, fixed: number): { shown: Set<string>; dropped: string[] } {
  const shown = [...chosen];
  const dropped: string[] = [];
  const need = () => {
    const minor = shown.some((id) => (COLUMN_META.get(id)?.priority ?? KEEP) <= MINOR);
    return (
      fixed +
      shown.reduce((s, id) => {
        const m = COLUMN_META.get(id);
        return s + (minor && m?.roomy ? m.roomy : (m?.width ?? 0));
      }, 0)
    );
  };
  while (width > 0 && need() > width) {
    let victim = -1;
    for (let i = 0; i < shown.length; i++) {
      const p = COLUMN_META.get(shown[i]!)?.priority ?? KEEP;
      if (p !== KEEP && (victim < 0 || p <= (COLUMN_META.get(shown[victim]!)?.priority ?? KEEP))) victim = i;
    }
    if (victim < 0) break;
    dropped.push(shown[victim]!);
    shown.splice(victim, 1);
  }
  return { shown: new Set(shown), dropped };
}
