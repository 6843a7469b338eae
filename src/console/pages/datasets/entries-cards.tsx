import { Box, Button, Group, Loader } from "@mantine/core";
import { useVirtualRows } from "../../components/virtual-table";
import { useRef } from "react";
import { EntryCard } from "./entry-card";
import type { Entry, EntrySelection } from "./queries";
import { selectRange } from "./selection";

type Props = {
  rows: Entry[];
  criterionNames: Map<string, string>;
  sharedSystem: string | null;
  selection: EntrySelection;
  onSelectionChange(s: EntrySelection): void;
  onEdit(entry: Entry): void;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): void;
};

/** The entries as full cards (each conversation whole), virtualised and loaded as it scrolls. */
export function EntriesCards({
  rows,
  criterionNames,
  sharedSystem,
  selection,
  onSelectionChange,
  onEdit,
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
}: Props) {
  const { scrollRef, virtualizer, items } = useVirtualRows({
    count: rows.length,
    estimateSize: 220,
    overscan: 4,
    ahead: 5,
    hasNextPage,
    isFetchingNextPage,
    fetchNextPage,
  });
  const anchor = useRef<number | null>(null);
  const select = (index: number, on: boolean, shift: boolean) => {
    onSelectionChange(selectRange(selection, rows, anchor.current, index, on, shift));
    anchor.current = index;
  };
  return (
    <Box ref={scrollRef} data-testid="entries-scroll" style={{ flex: "1 1 0", minHeight: 220, overflow: "auto" }}>
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {items.map((v) => {
          const e = rows[v.index]!;
          return (
            <div
              key={e.id}
              data-index={v.index}
              ref={virtualizer.measureElement}
              style={{ position: "absolute", top: 0, left: 0, width: "100%", paddingBottom: 12, transform: `translateY(${v.start}px)` }}
            >
              <EntryCard
                entry={e}
                criterionNames={criterionNames}
                sharedSystem={sharedSystem}
                selected={selection.allMatching || selection.ids.has(e.id)}
                onSelect={(on, shift) => select(v.index, on, shift)}
                onEdit={() => onEdit(e)}
              />
            </div>
          );
        })}
      </div>
      {hasNextPage ? (
        <Group justify="center" my="md">
          {isFetchingNextPage ? <Loader size="xs" aria-label="Loading more entries" /> : null}
          <Button variant="default" onClick={fetchNextPage} disabled={isFetchingNextPage}>
            Load more
          </Button>
        </Group>
      ) : null}
    </Box>
  );
}
