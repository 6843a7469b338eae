import { VisuallyHidden } from "@mantine/core";
import { flexRender, getCoreRowModel, useReactTable, type VisibilityState } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { forwardRef, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ListFooter } from "../../components/list-footer";
import { GRID_TABLE, VirtualTableBox, VirtualTableHead } from "../../components/virtual-table";
import type { OnFilter } from "./cell-filter";
import { COLUMNS, type ColumnMeta, fitColumns, type TableMeta } from "./columns";
import { LogRowView, ROW_HEIGHT } from "./log-row";
import { type LogRow, NEW_ROW_MS, type Selection } from "./queries";
import { useRowKeyboard } from "./use-row-keyboard";

/** The checkbox and the row's filter menu, before the columns. */
const LEAD = "34px 30px";
const LEAD_PX = 64;

/** What the page can ask of the table: put the keyboard on a row (the one a drawer showed). */
export type LogsTableHandle = { focusRow(id: string | null): void };

type Props = {
  rows: LogRow[];
  activeId: string | null;
  arrivedAt: Map<string, number>;
  selection: Selection;
  onSelectionChange(s: Selection): void;
  onOpen(id: string): void;
  onFilter: OnFilter;
  /** The text search, marked in the previews. */
  q: string | undefined;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): void;
  visibility: VisibilityState;
  /** Told which chosen columns were left out to fit the window. */
  onDroppedChange(ids: string[]): void;
};

/** The width of the table's box without its scrollbar, followed as the window changes. */
function useInnerWidth(ref: React.RefObject<HTMLDivElement | null>) {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const read = () => setWidth(el.clientWidth);
    read();
    const ro = new ResizeObserver(read);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}

/**
 * The logs, virtualised: only the rows on screen are in the page. One tab stop (the current row);
 * the keyboard moves between rows, opens, selects and filters (useShortcuts lists the keys).
 */
export const LogsTable = forwardRef<LogsTableHandle, Props>(function LogsTable(props, ref) {
  const { rows, activeId, arrivedAt, selection, onSelectionChange, onOpen, onFilter, q, hasNextPage, isFetchingNextPage, fetchNextPage, visibility } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const width = useInnerWidth(scrollRef);
  const chosen = useMemo(() => COLUMNS.map((c) => c.id!).filter((id) => visibility[id] !== false), [visibility]);
  const fit = useMemo(() => fitColumns(chosen, width, LEAD_PX), [chosen, width]);
  const droppedKey = fit.dropped.join(",");
  const { onDroppedChange } = props;
  // biome-ignore lint/correctness/useExhaustiveDependencies: droppedKey is fit.dropped's value
  useEffect(() => onDroppedChange(fit.dropped), [droppedKey, onDroppedChange]);
  const columnVisibility = useMemo(() => Object.fromEntries(COLUMNS.map((c) => [c.id!, fit.shown.has(c.id!)])), [fit]);
  const tableMeta = useMemo<TableMeta>(() => ({ onFilter, q }), [onFilter, q]);
  const table = useReactTable({
    data: rows,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (r) => r.id,
    state: { columnVisibility },
    meta: tableMeta,
  });
  const columns = table.getVisibleLeafColumns();
  const metas = columns.map((c) => c.columnDef.meta as ColumnMeta);
  const template = `${LEAD} ${metas.map((m) => (m.grow ? `minmax(${m.width}px, ${m.grow}fr)` : `${m.width}px`)).join(" ")}`;
  const minWidth = LEAD_PX + metas.reduce((a, m) => a + m.width, 0);

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

  const { tabStop, setCurrent, focusIndex, menuFor, setMenuFor, toggle } = useRowKeyboard({
    ids,
    activeId,
    scrollRef,
    virtualizer,
    selection,
    onSelectionChange,
    onOpen,
  });
  useImperativeHandle(ref, () => ({ focusRow: (id) => focusIndex(Math.max(0, id ? ids.indexOf(id) : 0)) }), [focusIndex, ids]);

  const allLoadedSelected = selection.allMatching || (rows.length > 0 && rows.every((r) => selection.ids.has(r.id)));
  const someSelected = selection.ids.size > 0 && !allLoadedSelected;
  const now = Date.now();

  return (
    <VirtualTableBox boxRef={scrollRef} className="hone-logs-scroll" minHeight={240}>
      <table aria-label="Request logs" aria-rowcount={rows.length + 1} style={{ ...GRID_TABLE, minWidth }}>
        <VirtualTableHead
          className="hone-logs-head"
          template={template}
          height={ROW_HEIGHT}
          selectLabel="Select all loaded logs"
          allSelected={allLoadedSelected}
          someSelected={someSelected}
          onSelectAll={(on) => onSelectionChange({ ids: on ? new Set(rows.map((r) => r.id)) : new Set(), allMatching: false })}
        >
          <th>
            <VisuallyHidden>Filter menu</VisuallyHidden>
          </th>
          {table.getHeaderGroups()[0]!.headers.map((h) => (
            <th key={h.id} style={{ padding: "0 8px", fontSize: 12, fontWeight: 600, textAlign: (h.column.columnDef.meta as ColumnMeta).align ?? "left" }}>
              {flexRender(h.column.columnDef.header, h.getContext())}
            </th>
          ))}
        </VirtualTableHead>
        <tbody style={{ display: "grid", height: virtualizer.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const row = table.getRowModel().rows[item.index];
            if (!row) return null;
            const arrived = arrivedAt.get(row.id);
            return (
              <LogRowView
                key={row.id}
                row={row}
                index={item.index}
                start={item.start}
                template={template}
                tabStop={row.id === tabStop}
                active={activeId === row.id}
                fresh={arrived !== undefined && now - arrived < NEW_ROW_MS}
                selected={selection.allMatching || selection.ids.has(row.id)}
                menuOpened={menuFor === row.id}
                onMenuChange={(opened) => {
                  setMenuFor(opened ? row.id : null);
                  if (!opened && menuFor === row.id) focusIndex(item.index);
                }}
                onFocus={() => setCurrent(row.id)}
                onOpen={onOpen}
                onToggle={toggle}
                onFilter={onFilter}
              />
            );
          })}
        </tbody>
      </table>
      <ListFooter
        what="logs"
        count={rows.length}
        hasNextPage={hasNextPage}
        isFetchingNextPage={isFetchingNextPage}
        fetchNextPage={fetchNextPage}
        hint="Scroll down or press to load the next 100"
      />
    </VirtualTableBox>
  );
});
