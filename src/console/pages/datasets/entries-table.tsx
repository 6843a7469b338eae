import { Group, Text } from "@mantine/core";
import { useElementSize } from "@mantine/hooks";
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { type KeyboardEvent, memo, type ReactNode, useRef, useState } from "react";
import { ListFooter } from "../../components/list-footer";
import { GRID_TABLE, useVirtualRows, VirtualTableBox, VirtualTableHead } from "../../components/virtual-table";
import { useShortcuts } from "../../lib/shortcuts";
import { SOURCE_LABELS, VerdictBadges } from "./entry-card";
import { inputPreview, outputPreview } from "./entry-preview";
import type { Entry, EntrySelection } from "./queries";
import { selectRange } from "./selection";

export const ROW_HEIGHT = 36;

type ColumnMeta = { width: number; grow?: number };

type Names = Map<string, string>;

/** Each column's cell for an entry (rows call these directly, so a row can skip re-rendering). */
const CELLS: Record<string, (e: Entry, names: Names) => ReactNode> = {
  input: (e) => {
    const text = inputPreview(e.messages);
    return <span title={text}>{text || "–"}</span>;
  },
  output: (e) => {
    const out = outputPreview(e.messages);
    return (
      <span title={out.text}>
        {out.toolCalls ? (
          <Text span size="xs" fw={700} mr={4}>
            calls
          </Text>
        ) : null}
        {out.text || "–"}
      </span>
    );
  },
  split: (e) => e.split,
  source: (e) => SOURCE_LABELS[e.source] ?? e.source,
  verdicts: (e, names) =>
    e.verdicts.length ? (
      <Group gap={4} wrap="nowrap">
        <VerdictBadges verdicts={e.verdicts} names={names} size="xs" />
      </Group>
    ) : (
      ""
    ),
};

const COLUMNS: ColumnDef<Entry>[] = [
  { id: "input", header: "Input (last user message)", meta: { width: 120, grow: 3 } },
  { id: "output", header: "Output", meta: { width: 110, grow: 3 } },
  { id: "split", header: "Split", meta: { width: 58 } },
  { id: "source", header: "Source", meta: { width: 92 } },
  { id: "verdicts", header: "Verdicts", meta: { width: 96, grow: 2 } },
];

type Props = {
  rows: Entry[];
  criterionNames: Map<string, string>;
  selection: EntrySelection;
  onSelectionChange(s: EntrySelection): void;
  activeId: string | null;
  onOpen(entry: Entry): void;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): void;
};

/**
 * The dataset's entries as dense rows: only the rows near the viewport are in the page, and the next
 * page of entries is asked for as the last loaded rows come into view. A row opens the entry.
 */
export function EntriesTable({ rows, criterionNames, selection, onSelectionChange, activeId, onOpen, hasNextPage, isFetchingNextPage, fetchNextPage }: Props) {
  // In a narrow window the source column gives its room to the previews (the entry shows it).
  const { ref: sizeRef, width } = useElementSize();
  const narrow = width > 0 && width < 640;
  const table = useReactTable({
    data: rows,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (r) => r.id,
    state: { columnVisibility: { source: !narrow } },
  });
  const metas = table.getVisibleLeafColumns().map((c) => c.columnDef.meta as ColumnMeta);
  const template = `36px ${metas.map((m) => (m.grow ? `minmax(${m.width}px, ${m.grow}fr)` : `${m.width}px`)).join(" ")}`;
  const minWidth = 36 + metas.reduce((n, m) => n + m.width, 0);

  const { scrollRef, virtualizer, items } = useVirtualRows({
    count: rows.length,
    estimateSize: ROW_HEIGHT,
    overscan: 5,
    ahead: 30,
    hasNextPage,
    isFetchingNextPage,
    fetchNextPage,
  });

  // Shift-click selects the range from the last row clicked.
  const anchor = useRef<number | null>(null);
  const selected = (id: string) => selection.allMatching || selection.ids.has(id);
  const setRange = (index: number, on: boolean, shift: boolean) => {
    onSelectionChange(selectRange(selection, rows, anchor.current, index, on, shift));
    anchor.current = index;
  };
  const allLoaded = selection.allMatching || (rows.length > 0 && rows.every((r) => selection.ids.has(r.id)));

  // Keyboard: j/k move the row cursor, x selects it, o (or Enter on a row) opens it.
  const [cursor, setCursor] = useState(-1);
  const focusRow = (to: number) => {
    // Not behind an open entry: the drawer keeps the focus.
    if (activeId) return;
    const i = Math.max(0, Math.min(rows.length - 1, to));
    setCursor(i);
    virtualizer.scrollToIndex(i);
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-index="${i}"]`)?.focus());
  };
  useShortcuts("Dataset entries", [
    { keys: "j", label: "Next entry", handler: () => focusRow(cursor + 1) },
    { keys: "k", label: "Previous entry", handler: () => focusRow(cursor - 1) },
    { keys: "x", label: "Select or unselect the entry", handler: () => !activeId && rows[cursor] && setRange(cursor, !selected(rows[cursor]!.id), false) },
    { keys: "o", label: "Open the entry", handler: () => !activeId && rows[cursor] && onOpen(rows[cursor]!) },
  ]);
  // The rows' callbacks, read through a ref: a row re-renders only when what it shows changes.
  const handlers = useRef<RowHandlers>({ onOpen, setRange, setCursor });
  handlers.current = { onOpen, setRange, setCursor };
  const columnIds = table
    .getVisibleLeafColumns()
    .map((c) => c.id)
    .join(",");

  return (
    <VirtualTableBox
      boxRef={(el: HTMLDivElement | null) => {
        scrollRef.current = el;
        sizeRef(el);
      }}
      data-testid="entries-scroll"
      minHeight={360}
    >
      <style>{TABLE_CSS}</style>
      <table aria-label="Dataset entries" aria-rowcount={rows.length + 1} style={{ ...GRID_TABLE, minWidth }}>
        <VirtualTableHead
          className="hone-entries-head"
          template={template}
          height={ROW_HEIGHT}
          selectLabel="Select all loaded entries"
          allSelected={allLoaded}
          someSelected={!allLoaded && selection.ids.size > 0}
          onSelectAll={(on) => onSelectionChange({ ids: on ? new Set(rows.map((r) => r.id)) : new Set(), allMatching: false })}
        >
          {table.getHeaderGroups()[0]!.headers.map((h) => (
            <th key={h.id} style={{ padding: "0 8px", fontSize: 12, fontWeight: 600, textAlign: "left", whiteSpace: "nowrap", overflow: "hidden" }}>
              {flexRender(h.column.columnDef.header, h.getContext())}
            </th>
          ))}
        </VirtualTableHead>
        <tbody style={{ display: "grid", height: virtualizer.getTotalSize(), position: "relative" }}>
          {items.map((item) => {
            const entry = rows[item.index];
            if (!entry) return null;
            return (
              <EntryRow
                key={entry.id}
                entry={entry}
                index={item.index}
                start={item.start}
                selected={selected(entry.id)}
                active={activeId === entry.id}
                template={template}
                columnIds={columnIds}
                names={criterionNames}
                handlers={handlers}
              />
            );
          })}
        </tbody>
      </table>
      <ListFooter what="entries" count={rows.length} hasNextPage={hasNextPage} isFetchingNextPage={isFetchingNextPage} fetchNextPage={fetchNextPage} />
    </VirtualTableBox>
  );
}

type RowHandlers = {
  onOpen(entry: Entry): void;
  setRange(index: number, on: boolean, shift: boolean): void;
  setCursor(index: number): void;
};

type RowProps = {
  entry: Entry;
  index: number;
  start: number;
  selected: boolean;
  active: boolean;
  template: string;
  columnIds: string;
  names: Names;
  handlers: { current: RowHandlers };
};

/** One row; memoised, so scrolling renders only the rows that come into view. */
const EntryRow = memo(function EntryRow({ entry, index, start, selected, active, template, columnIds, names, handlers }: RowProps) {
  return (
    <tr
      tabIndex={0}
      data-index={index}
      data-entry-id={entry.id}
      data-testid="entry-row"
      aria-selected={selected}
      aria-current={active ? "true" : undefined}
      aria-rowindex={index + 2}
      className={`hone-entry-row${active ? " hone-entry-row-active" : ""}`}
      onClick={() => handlers.current.onOpen(entry)}
      onFocus={() => handlers.current.setCursor(index)}
      onKeyDown={(e: KeyboardEvent<HTMLTableRowElement>) => {
        if (e.key === "Enter" && e.target === e.currentTarget) handlers.current.onOpen(entry);
      }}
      style={{ transform: `translateY(${start}px)`, gridTemplateColumns: template }}
    >
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the checkbox inside takes the keyboard */}
      <td className="hone-entry-check" onClick={(e) => e.stopPropagation()}>
        {/* A native checkbox: a row mounts while scrolling, so it stays a single cheap element. */}
        <input
          type="checkbox"
          aria-label={`Select entry ${index + 1}`}
          checked={selected}
          onChange={(e) => handlers.current.setRange(index, e.currentTarget.checked, (e.nativeEvent as MouseEvent).shiftKey)}
        />
      </td>
      {columnIds.split(",").map((id) => (
        <td key={id} data-column={id} className="hone-entry-cell">
          {CELLS[id]?.(entry, names)}
        </td>
      ))}
    </tr>
  );
});

const TABLE_CSS = `
.hone-entries-head { background: var(--mantine-color-body); border-bottom: 1px solid var(--mantine-color-default-border); }
.hone-entry-row {
  position: absolute; top: 0; left: 0; width: 100%; height: ${ROW_HEIGHT}px; display: grid; align-items: center; cursor: pointer;
  border-bottom: 1px solid var(--mantine-color-default-border); outline-offset: -2px;
  contain: strict; /* a row's layout and paint never reach past its own box */
}
.hone-entry-check { padding-left: 10px; display: flex; }
.hone-entry-check input { width: 16px; height: 16px; margin: 0; cursor: pointer; accent-color: var(--mantine-primary-color-filled); }
.hone-entry-cell { padding: 0 8px; font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.hone-entry-row:hover { background: var(--mantine-color-default-hover); }
.hone-entry-row[aria-selected="true"] { background: var(--mantine-primary-color-light); }
.hone-entry-row-active { box-shadow: inset 3px 0 0 var(--mantine-primary-color-filled); }
`;
