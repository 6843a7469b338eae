import { Badge, Box, Button, Checkbox, Group, Loader, Menu, Text, Tooltip } from "@mantine/core";
import { useLocalStorage } from "@mantine/hooks";
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable, type VisibilityState } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { type KeyboardEvent, useEffect, useLayoutEffect, useMemo, useRef } from "react";
import { formatCost, formatMs, formatNumber, formatTime } from "../../lib/format";
import type { LogRow } from "./use-logs";

export const ROW_HEIGHT = 36;

export function statusColor(code: number | null | undefined): string {
  if (code == null || code === 0) return "gray";
  if (code < 300) return "teal";
  if (code < 400) return "blue";
  if (code < 500) return "orange";
  return "red";
}

/** A status as text and colour: "200", "429", or "—" when the call got no HTTP status. */
export function StatusBadge({ code }: { code: number | null | undefined }) {
  const none = code == null || code === 0;
  return (
    <Badge
      color={statusColor(code)}
      variant="light"
      radius="sm"
      tt="none"
      aria-label={none ? "no status" : `status ${code}`}
      styles={{ root: { minWidth: 44 } }}
    >
      {none ? "—" : code}
    </Badge>
  );
}

/** Cost in a narrow cell: tiny amounts as "<$0.0001", the exact figure on hover. */
function CostCell({ usd }: { usd: number | null }) {
  const exact = formatCost(usd);
  const short = usd != null && usd > 0 && usd < 0.0001 ? "<$0.0001" : exact;
  return <span title={usd != null ? `$${usd}` : undefined}>{short}</span>;
}

export const SOURCE_LABELS: Record<string, string> = { gateway: "gateway", report: "report", "report-anthropic": "report (Anthropic)" };

const tagsText = (m: Record<string, string>) =>
  Object.entries(m)
    .map(([k, v]) => `${k}=${v}`)
    .join("  ");

type ColumnMeta = { width: number; align?: "right"; label: string; grow?: boolean };

const COLUMNS: ColumnDef<LogRow>[] = [
  { id: "time", header: "Time", meta: { width: 158, label: "Time" }, cell: ({ row }) => formatTime(row.original.createdAt) },
  { id: "source", header: "Source", meta: { width: 126, label: "Source" }, cell: ({ row }) => row.original.source },
  {
    id: "model",
    header: "Model",
    meta: { width: 196, label: "Model" },
    cell: ({ row }) => <span title={row.original.model ?? undefined}>{row.original.model ?? "–"}</span>,
  },
  { id: "provider", header: "Provider", meta: { width: 100, label: "Provider" }, cell: ({ row }) => row.original.provider ?? "–" },
  { id: "status", header: "Status", meta: { width: 62, label: "Status" }, cell: ({ row }) => <StatusBadge code={row.original.statusCode} /> },
  { id: "latency", header: "Latency", meta: { width: 70, align: "right", label: "Latency" }, cell: ({ row }) => formatMs(row.original.durationMs) },
  { id: "tokensIn", header: "In", meta: { width: 54, align: "right", label: "Tokens in" }, cell: ({ row }) => formatNumber(row.original.inputTokens) },
  { id: "tokensOut", header: "Out", meta: { width: 54, align: "right", label: "Tokens out" }, cell: ({ row }) => formatNumber(row.original.outputTokens) },
  { id: "cost", header: "Cost", meta: { width: 88, align: "right", label: "Cost" }, cell: ({ row }) => <CostCell usd={row.original.costUsd} /> },
  { id: "cache", header: "Cache", meta: { width: 50, label: "Cache hit" }, cell: ({ row }) => (row.original.cacheHit ? "hit" : "") },
  {
    id: "tags",
    header: "Tags",
    meta: { width: 120, label: "Tags", grow: true },
    cell: ({ row }) => {
      const t = tagsText(row.original.metadata);
      return (
        <Text size="xs" ff="monospace" truncate="end" title={t} c="dimmed">
          {t}
        </Text>
      );
    },
  },
];

export const COLUMN_LABELS = COLUMNS.map((c) => ({ id: c.id!, label: (c.meta as ColumnMeta).label }));

export type Selection = { ids: Set<string>; allMatching: boolean };

type Props = {
  rows: LogRow[];
  activeId: string | null;
  arrivedAt: Map<string, number>;
  selection: Selection;
  onSelectionChange(s: Selection): void;
  onOpen(id: string): void;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): void;
  visibility: VisibilityState;
};

export function useColumnVisibility() {
  return useLocalStorage<VisibilityState>({ key: "hone-logs-columns", defaultValue: { provider: false } });
}

/** The column chooser: a menu of checkboxes, remembered in localStorage. */
export function ColumnChooser({ visibility, onChange }: { visibility: VisibilityState; onChange(v: VisibilityState): void }) {
  return (
    <Menu closeOnItemClick={false} position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" size="xs">
          Columns
        </Button>
      </Menu.Target>
      <Menu.Dropdown aria-label="Visible columns">
        {COLUMN_LABELS.map((c) => (
          <Menu.Item key={c.id} component="div">
            <Checkbox
              label={c.label}
              size="xs"
              checked={visibility[c.id] !== false}
              onChange={(e) => onChange({ ...visibility, [c.id]: e.currentTarget.checked })}
            />
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

export function LogsTable({
  rows,
  activeId,
  arrivedAt,
  selection,
  onSelectionChange,
  onOpen,
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
  visibility,
}: Props) {
  const table = useReactTable({
    data: rows,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (r) => r.id,
    state: { columnVisibility: visibility },
  });
  const columns = table.getVisibleLeafColumns();
  const widths = columns.map((c) => (c.columnDef.meta as ColumnMeta).width);
  const template = `36px ${columns.map((c, i) => ((c.columnDef.meta as ColumnMeta).grow ? `minmax(${widths[i]}px, 1fr)` : `${widths[i]}px`)).join(" ")}`;
  const minWidth = 36 + widths.reduce((a, b) => a + b, 0);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();

  // Rows put on top by the live tail must not move what the reader is looking at.
  const firstId = useRef<string | null>(null);
  const ids = useMemo(() => rows.map((r) => r.id), [rows]);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const prevFirst = firstId.current;
    firstId.current = ids[0] ?? null;
    if (!el || !prevFirst || ids[0] === prevFirst) return;
    const at = ids.indexOf(prevFirst);
    if (at > 0 && el.scrollTop > 0) el.scrollTop += at * ROW_HEIGHT;
  }, [ids]);

  const last = items[items.length - 1];
  useEffect(() => {
    if (last && last.index >= rows.length - 25 && hasNextPage && !isFetchingNextPage) fetchNextPage();
  }, [last, rows.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  const allLoadedSelected = selection.allMatching || (rows.length > 0 && rows.every((r) => selection.ids.has(r.id)));
  const someSelected = selection.ids.size > 0 && !allLoadedSelected;
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selection.ids);
    if (on) next.add(id);
    else next.delete(id);
    onSelectionChange({ ids: next, allMatching: false });
  };
  const onKey = (e: KeyboardEvent<HTMLDivElement>, id: string, index: number) => {
    if (e.key === "Enter") onOpen(id);
    else if (e.key === "ArrowDown" || e.key === "j" || e.key === "ArrowUp" || e.key === "k") {
      e.preventDefault();
      const to = Math.max(0, Math.min(rows.length - 1, index + (e.key === "ArrowDown" || e.key === "j" ? 1 : -1)));
      virtualizer.scrollToIndex(to);
      requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-index="${to}"]`)?.focus());
    } else if (e.key === " " || e.key === "x") {
      e.preventDefault();
      toggle(id, !selection.ids.has(id));
    }
  };
  const now = Date.now();

  return (
    <Box
      ref={scrollRef}
      className="hone-logs-scroll"
      style={{ flex: "1 1 0", minHeight: 240, overflow: "auto", border: "1px solid var(--mantine-color-default-border)", borderRadius: 8 }}
    >
      <table aria-label="Request logs" aria-rowcount={rows.length + 1} style={{ display: "grid", minWidth, borderCollapse: "collapse" }}>
        <thead className="hone-logs-head" style={{ display: "grid", position: "sticky", top: 0, zIndex: 2 }}>
          <tr style={{ display: "grid", gridTemplateColumns: template, height: ROW_HEIGHT, alignItems: "center" }}>
            <th style={{ paddingLeft: 10, display: "flex" }}>
              <Checkbox
                size="xs"
                aria-label="Select all loaded logs"
                checked={allLoadedSelected}
                indeterminate={someSelected}
                onChange={(e) =>
                  onSelectionChange(
                    e.currentTarget.checked ? { ids: new Set(rows.map((r) => r.id)), allMatching: false } : { ids: new Set(), allMatching: false },
                  )
                }
              />
            </th>
            {table.getHeaderGroups()[0]!.headers.map((h) => (
              <th key={h.id} style={{ padding: "0 8px", fontSize: 12, fontWeight: 600, textAlign: (h.column.columnDef.meta as ColumnMeta).align ?? "left" }}>
                {flexRender(h.column.columnDef.header, h.getContext())}
              </th>
            ))}
          </tr>
        </thead>
        <tbody style={{ display: "grid", height: virtualizer.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const row = table.getRowModel().rows[item.index];
            if (!row) return null;
            const log = row.original;
            const selected = selection.allMatching || selection.ids.has(log.id);
            const arrived = arrivedAt.get(log.id);
            const fresh = arrived !== undefined && now - arrived < 3000;
            return (
              <tr
                key={log.id}
                tabIndex={0}
                data-index={item.index}
                data-log-id={log.id}
                aria-selected={selected}
                aria-current={activeId === log.id ? "true" : undefined}
                aria-rowindex={item.index + 2}
                className={`hone-log-row${fresh ? " hone-log-row-new" : ""}${activeId === log.id ? " hone-log-row-active" : ""}${
                  log.statusCode != null && log.statusCode >= 400 ? " hone-log-row-error" : ""
                }`}
                onClick={() => onOpen(log.id)}
                onKeyDown={(e) => onKey(e, log.id, item.index)}
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  width: "100%",
                  height: ROW_HEIGHT,
                  transform: `translateY(${item.start}px)`,
                  display: "grid",
                  gridTemplateColumns: template,
                  alignItems: "center",
                  cursor: "pointer",
                }}
              >
                {/* biome-ignore lint/a11y/useKeyWithClickEvents: the checkbox inside takes the keyboard */}
                <td style={{ paddingLeft: 10, display: "flex" }} onClick={(e) => e.stopPropagation()}>
                  <Checkbox size="xs" aria-label={`Select log ${log.id}`} checked={selected} onChange={(e) => toggle(log.id, e.currentTarget.checked)} />
                </td>
                {row.getVisibleCells().map((cell) => (
                  <td
                    key={cell.id}
                    data-column={cell.column.id}
                    style={{
                      padding: "0 8px",
                      fontSize: 13,
                      whiteSpace: "nowrap",
                      overflow: "hidden",
                      textOverflow: "ellipsis",
                      textAlign: (cell.column.columnDef.meta as ColumnMeta).align ?? "left",
                      fontVariantNumeric: "tabular-nums",
                    }}
                  >
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      {isFetchingNextPage || hasNextPage ? (
        <Group justify="center" p="xs">
          {isFetchingNextPage ? <Loader size="xs" aria-label="Loading more logs" /> : null}
          <Tooltip label="Scroll down or press to load the next 100">
            <Button size="compact-xs" variant="subtle" onClick={fetchNextPage} disabled={isFetchingNextPage}>
              Load more
            </Button>
          </Tooltip>
        </Group>
      ) : rows.length ? (
        <Text size="xs" c="dimmed" ta="center" p="xs">
          End of the list
        </Text>
      ) : null}
    </Box>
  );
}

/** Row styles (hover, selection, the live tail's highlight), both themes. */
export const TABLE_CSS = `
.hone-logs-head { background: var(--mantine-color-body); border-bottom: 1px solid var(--mantine-color-default-border); }
.hone-log-row { border-bottom: 1px solid var(--mantine-color-default-border); outline-offset: -2px; }
.hone-log-row:hover { background: var(--mantine-color-default-hover); }
.hone-log-row[aria-selected="true"] { background: var(--mantine-primary-color-light); }
.hone-log-row-active { box-shadow: inset 3px 0 0 var(--mantine-primary-color-filled); background: var(--mantine-color-default-hover); }
.hone-log-row-new { animation: hone-log-new 3s ease-out; }
@keyframes hone-log-new { from { background: var(--mantine-color-yellow-light); } to { background: transparent; } }
`;
