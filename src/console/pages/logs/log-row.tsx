import { flexRender, type Row } from "@tanstack/react-table";
import { type OnFilter, RowFilterMenu } from "./cell-filter";
import type { ColumnMeta } from "./columns";
import type { LogRow } from "./queries";

export const ROW_HEIGHT = 36;

const CELL_STYLE = {
  padding: "0 8px",
  fontSize: 13,
  whiteSpace: "nowrap",
  overflow: "hidden",
  textOverflow: "ellipsis",
  fontVariantNumeric: "tabular-nums",
} as const;

/**
 * One log in the virtualised table: placed at `start`, its checkbox (the mouse's; x is the
 * keyboard's), its filter menu, and its cells. Clicking it opens the log.
 */
export function LogRowView(props: {
  row: Row<LogRow>;
  index: number;
  start: number;
  template: string;
  tabStop: boolean;
  active: boolean;
  fresh: boolean;
  selected: boolean;
  menuOpened: boolean;
  onMenuChange(opened: boolean): void;
  onFocus(): void;
  onOpen(id: string): void;
  onToggle(id: string, on: boolean): void;
  onFilter: OnFilter;
}) {
  const { row, index, start, template, tabStop, active, fresh, selected, menuOpened, onMenuChange, onFocus, onOpen, onToggle, onFilter } = props;
  const log = row.original;
  return (
    <tr
      tabIndex={tabStop ? 0 : -1}
      data-index={index}
      data-log-id={log.id}
      aria-selected={selected}
      aria-current={active ? "true" : undefined}
      aria-rowindex={index + 2}
      className={`hone-log-row${fresh ? " hone-log-row-new" : ""}${active ? " hone-log-row-active" : ""}`}
      onClick={() => onOpen(log.id)}
      onFocus={(e) => {
        if (e.target === e.currentTarget) onFocus();
      }}
      style={{ transform: `translateY(${start}px)`, gridTemplateColumns: template }}
    >
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the row's x key selects; the checkbox is for the mouse */}
      <td className="hone-log-check" onClick={(e) => e.stopPropagation()}>
        {/* A native checkbox: rows mount as they scroll into view, so each stays a single cheap element. */}
        <input
          type="checkbox"
          tabIndex={-1}
          aria-label={`Select log ${log.id}`}
          checked={selected}
          onChange={(e) => onToggle(log.id, e.currentTarget.checked)}
        />
      </td>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: clicks in the menu (a portal) must not open the row */}
      <td style={{ display: "flex" }} onClick={(e) => e.stopPropagation()}>
        <RowFilterMenu log={log} onFilter={onFilter} opened={menuOpened} onChange={onMenuChange} buttonOnly={!tabStop} />
      </td>
      {row.getVisibleCells().map((cell) => (
        <td key={cell.id} data-column={cell.column.id} style={{ ...CELL_STYLE, textAlign: (cell.column.columnDef.meta as ColumnMeta).align ?? "left" }}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
}
