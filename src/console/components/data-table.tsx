import { Group, Loader, Paper, Table, type TableProps, Text, VisuallyHidden } from "@mantine/core";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { cloneElement, isValidElement, type ReactElement, type ReactNode, type Ref, useLayoutEffect, useRef, useState } from "react";
import { ErrorAlert } from "./error-alert";

/** Past this many rows a table holds only the rows near the window (a project may have thousands of keys). */
export const WINDOWED_FROM = 150;
const ROW_ESTIMATE = 44;

type ColumnSpec = { label: ReactNode; ta?: "left" | "right" | "center"; visibleFrom?: "xs" | "sm" | "md" | "lg" | "xl" };
/** A column's header: its text, or its text and how it sits. */
export type Column = ReactNode | ColumnSpec;

/** The last column of a table whose rows end in buttons: named for screen readers only. */
export const ACTIONS: ColumnSpec = { label: <VisuallyHidden>Actions</VisuallyHidden> };

/** Columns of figures, aligned right. */
export const right = (...labels: string[]): ColumnSpec[] => labels.map((label) => ({ label, ta: "right" }));

const isSpec = (c: Column): c is ColumnSpec => typeof c === "object" && c !== null && !isValidElement(c) && "label" in c;

/** What a list shows when it has nothing yet: a title and a line on how to add the first. */
export function EmptyCard({ title, children, maw = 640 }: { title: string; children: ReactNode; maw?: number }) {
  return (
    <Paper withBorder p="xl" maw={maw}>
      <Text fw={600}>{title}</Text>
      <Text size="sm" c="dimmed">
        {children}
      </Text>
    </Paper>
  );
}

/** A row across the whole table: loading, empty or failed. */
function WideRow({ span, state, children }: { span: number; state: string; children: ReactNode }) {
  return (
    <Table.Tr data-state={state}>
      <Table.Td colSpan={span}>{children}</Table.Td>
    </Table.Tr>
  );
}

type Props<T> = {
  /** The table's accessible name. */
  label: string;
  testId?: string;
  columns: Column[];
  /** The rows; undefined while they load. */
  rows?: readonly T[] | undefined;
  /** A list's query: its rows (undefined while they load, shown by a loading row) and its error. */
  query?: { data?: readonly T[]; error?: unknown };
  row(item: T, index: number): ReactNode;
  /** Scrolls sideways below this width. */
  minWidth?: number;
  /** Shows a loading row while the rows are not there yet. */
  loading?: boolean;
  /** A failed load (or change), shown as a row above the others. */
  error?: unknown;
  errorTitle?: string;
  /** The row shown when there are no rows. */
  empty?: ReactNode;
  /** Shown instead of the table when there are no rows. */
  emptyState?: ReactNode;
} & Omit<TableProps, "children" | "rows">;

/** A list as a table: its header, its rows, and the rows it shows while loading, when empty and on an error. */
export function DataTable<T>({ label, testId, columns, query, row, minWidth, empty, emptyState, ...props }: Props<T>) {
  const { rows: given, loading: givenLoading, error: givenError, errorTitle: givenTitle, ...tableProps } = props;
  const rows = query ? query.data : given;
  const loading = givenLoading ?? query !== undefined;
  const error = givenError ?? query?.error;
  // A failed load is titled by what failed; another failure (a change) keeps the alert's own title.
  const errorTitle = givenTitle ?? (error !== undefined && error === query?.error ? `${label} could not be loaded` : undefined);
  const none = rows !== undefined && rows.length === 0;
  if (none && emptyState) {
    return (
      <>
        {error ? <ErrorAlert error={error} title={errorTitle} /> : null}
        {emptyState}
      </>
    );
  }
  const span = columns.length;
  const table = (
    <Table {...tableProps} aria-label={label} data-testid={testId}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((c, i) =>
            isSpec(c) ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
              <Table.Th key={i} ta={c.ta} visibleFrom={c.visibleFrom}>
                {c.label}
              </Table.Th>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed
              <Table.Th key={i}>{c}</Table.Th>
            ),
          )}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {error ? (
          <WideRow span={span} state="error">
            <ErrorAlert error={error} title={errorTitle} />
          </WideRow>
        ) : null}
        {rows === undefined && loading && !error ? (
          <WideRow span={span} state="loading">
            <Group gap="xs">
              <Loader size="xs" />
              <Text size="sm" c="dimmed">
                Loading…
              </Text>
            </Group>
          </WideRow>
        ) : null}
        {rows && rows.length > WINDOWED_FROM ? <WindowedRows rows={rows} row={row} span={span} /> : rows?.map(row)}
        {none && empty ? (
          <WideRow span={span} state="empty">
            <Text c="dimmed" size="sm">
              {empty}
            </Text>
          </WideRow>
        ) : null}
      </Table.Tbody>
    </Table>
  );
  // Past its width (a phone) a table scrolls in its own box, never the page.
  return <Table.ScrollContainer minWidth={minWidth ?? 0}>{table}</Table.ScrollContainer>;
}

/** A spacer row standing in for the rows scrolled out of the window. */
function Spacer({ height, span, edge }: { height: number; span: number; edge: string }) {
  if (height <= 0) return null;
  return (
    <tr aria-hidden data-spacer={edge} style={{ height }}>
      <td colSpan={span} style={{ padding: 0, border: 0 }} />
    </tr>
  );
}

/**
 * The rows of a long table, only those near the window in the page (the page scrolls, not the
 * table): spacer rows keep the table's height, each drawn row is measured as it appears.
 */
function WindowedRows<T>({ rows, row, span }: { rows: readonly T[]; row(item: T, index: number): ReactNode; span: number }) {
  const anchor = useRef<HTMLTableRowElement>(null);
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const at = anchor.current;
    if (at) setMargin(at.getBoundingClientRect().top + window.scrollY);
  }, []);
  const virtualizer = useWindowVirtualizer({ count: rows.length, estimateSize: () => ROW_ESTIMATE, overscan: 12, scrollMargin: margin });
  const items = virtualizer.getVirtualItems();
  const top = items.length ? items[0]!.start - margin : 0;
  const bottom = items.length ? virtualizer.getTotalSize() - (items.at(-1)!.end - margin) : 0;
  return (
    <>
      <tr ref={anchor} aria-hidden style={{ height: 0 }}>
        <td colSpan={span} style={{ padding: 0, border: 0 }} />
      </tr>
      <Spacer height={top} span={span} edge="top" />
      {items.map((v) => {
        const el = row(rows[v.index]!, v.index);
        return isValidElement(el)
          ? cloneElement(el as ReactElement<{ "data-index"?: number; ref?: Ref<HTMLElement> }>, { "data-index": v.index, ref: virtualizer.measureElement })
          : el;
      })}
      <Spacer height={bottom} span={span} edge="bottom" />
    </>
  );
}
