import { Box, Checkbox } from "@mantine/core";
import { useVirtualizer } from "@tanstack/react-virtual";
import { type CSSProperties, type ReactNode, type Ref, useEffect, useRef } from "react";

/** The scrolling box of a virtualised table: it takes the room left on the page, at least `minHeight`. */
export function VirtualTableBox({
  boxRef,
  minHeight,
  children,
  ...rest
}: { boxRef: Ref<HTMLDivElement>; minHeight: number; children: ReactNode } & Partial<Record<`data-${string}` | "className", string>>) {
  return (
    <Box
      ref={boxRef}
      {...rest}
      style={{ flex: "1 1 0", minHeight, overflow: "auto", border: "1px solid var(--mantine-color-default-border)", borderRadius: 8 }}
    >
      {children}
    </Box>
  );
}

export const GRID_TABLE: CSSProperties = { display: "grid", borderCollapse: "collapse" };

/**
 * A virtualised table's sticky head: a checkbox that selects every loaded row, then the columns'
 * headers (`children`), laid out on the rows' grid `template`.
 */
export function VirtualTableHead({
  className,
  template,
  height,
  selectLabel,
  allSelected,
  someSelected,
  onSelectAll,
  children,
}: {
  className: string;
  template: string;
  height: number;
  selectLabel: string;
  allSelected: boolean;
  someSelected: boolean;
  onSelectAll(checked: boolean): void;
  children: ReactNode;
}) {
  return (
    <thead className={className} style={{ display: "grid", position: "sticky", top: 0, zIndex: 2 }}>
      <tr style={{ display: "grid", gridTemplateColumns: template, height, alignItems: "center" }}>
        <th style={{ paddingLeft: 10, display: "flex" }}>
          <Checkbox
            size="xs"
            aria-label={selectLabel}
            checked={allSelected}
            indeterminate={someSelected}
            onChange={(e) => onSelectAll(e.currentTarget.checked)}
          />
        </th>
        {children}
      </tr>
    </thead>
  );
}

/**
 * A list loaded page by page and virtualised: only the rows near the viewport are rendered, and
 * the next page is asked for once a row within `ahead` of the last loaded one comes into view.
 */
export function useVirtualRows({
  count,
  estimateSize,
  overscan,
  ahead,
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
}: {
  count: number;
  estimateSize: number;
  overscan: number;
  ahead: number;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count, getScrollElement: () => scrollRef.current, estimateSize: () => estimateSize, overscan });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (last >= count - ahead && hasNextPage && !isFetchingNextPage) fetchNextPage();
  }, [last, count, ahead, hasNextPage, isFetchingNextPage, fetchNextPage]);
  return { scrollRef, virtualizer, items };
}
