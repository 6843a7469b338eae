import { Button, Group, Loader, Text, Tooltip } from "@mantine/core";

/**
 * The foot of a list loaded page by page: a spinner while the next page loads, a "Load more" button
 * while there is one (scrolling down asks for it too), "End of the list" once all are shown.
 */
export function ListFooter({
  what,
  count,
  hasNextPage,
  isFetchingNextPage,
  fetchNextPage,
  hint,
}: {
  /** What the list holds, for the spinner's label: "logs", "entries". */
  what: string;
  count: number;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): void;
  /** A tooltip on the button. */
  hint?: string;
}) {
  if (isFetchingNextPage || hasNextPage) {
    const button = (
      <Button size="compact-xs" variant="subtle" onClick={fetchNextPage} disabled={isFetchingNextPage}>
        Load more
      </Button>
    );
    return (
      <Group justify="center" p="xs">
        {isFetchingNextPage ? <Loader size="xs" aria-label={`Loading more ${what}`} /> : null}
        {hint ? <Tooltip label={hint}>{button}</Tooltip> : button}
      </Group>
    );
  }
  return count ? (
    <Text size="xs" c="dimmed" ta="center" p="xs">
      End of the list
    </Text>
  ) : null;
}
