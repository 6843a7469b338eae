import { Button, Center, Group, Loader, Stack, Switch, Text, Tooltip } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Outlet, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useCallback, useMemo, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatCompact, formatNumber } from "../../lib/format";
import { useTRPC } from "../../lib/trpc";
import { BulkActions, ExportProgress, useJsonlExport } from "./bulk-actions";
import { LogsEmptyState } from "./empty-state";
import { FilterBar } from "./filter-bar";
import { ColumnChooser, LogsTable, type Selection, TABLE_CSS, useColumnVisibility } from "./logs-table";
import { hasFilters, type LogsSearch, toLogFilter } from "./search";
import { useLogs } from "./use-logs";

const NO_SELECTION: Selection = { ids: new Set(), allMatching: false };

/** "1,234 calls", or "about 2.3M calls" when the count is an estimate. */
export function countLabel(c: { count: number; exact: boolean }): string {
  const noun = c.count === 1 ? "call" : "calls";
  return c.exact ? `${formatNumber(c.count)} ${noun}` : `about ${formatCompact(c.count)} ${noun}`;
}

export function LogsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const search = useSearch({ from: "/logs" });
  const navigate = useNavigate({ from: "/logs" });
  const activeId = useParams({ strict: false }).logId ?? null;
  const [live, setLive] = useState(false);
  const [selection, setSelection] = useState<Selection>(NO_SELECTION);
  const [visibility, setVisibility] = useColumnVisibility();

  // Relative ranges ("last hour") are fixed when the filter changes, so pages agree with each other.
  const searchKey = JSON.stringify(search);
  // biome-ignore lint/correctness/useExhaustiveDependencies: searchKey is the search's value
  const filter = useMemo(() => toLogFilter(search), [searchKey]);
  const { query, rows, arrivedAt } = useLogs(filter, live);
  const count = useQuery(trpc.logs.count.queryOptions({ filter }, { refetchInterval: live ? 5000 : false, staleTime: 5000 }));
  const jsonl = useJsonlExport();

  const setSearch = useCallback(
    (patch: Partial<LogsSearch>) => {
      setSelection(NO_SELECTION);
      void navigate({
        search: (prev: LogsSearch) => {
          const next: Record<string, unknown> = { ...prev, ...patch };
          for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
          return next as LogsSearch;
        },
        replace: true,
      });
    },
    [navigate],
  );
  const clear = useCallback(() => {
    setSelection(NO_SELECTION);
    void navigate({ search: {}, replace: true });
  }, [navigate]);
  const open = useCallback((logId: string) => void navigate({ to: "/logs/$logId", params: { logId }, search: (s: LogsSearch) => s }), [navigate]);
  const refreshAfterChange = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.logs.pathKey() });
  }, [queryClient, trpc]);

  const seenModels = useMemo(
    () => [
      ...new Set(
        rows
          .slice(0, 500)
          .map((r) => r.model)
          .filter((m): m is string => !!m),
      ),
    ],
    [rows],
  );
  const selectedCount = selection.allMatching ? (count.data ?? { count: 0, exact: false }) : { count: selection.ids.size, exact: true };
  const hasSelection = selection.allMatching || selection.ids.size > 0;
  const projectEmpty = query.isSuccess && rows.length === 0 && !hasFilters(search);

  return (
    // The page fills the window below the header; the table takes what the filters leave.
    <Stack gap={0} style={{ height: "calc(100dvh - var(--app-shell-header-height, 64px) - 2 * var(--mantine-spacing-md))", minHeight: 480 }}>
      <style>{TABLE_CSS}</style>
      <PageHeader
        title="Request logs"
        description={
          <span data-testid="logs-count" aria-live="polite">
            {count.data ? countLabel(count.data) : count.isPending ? "Counting…" : ""}
            {count.data && hasFilters(search) ? " match the filters" : ""}
          </span>
        }
        actions={
          <>
            <Tooltip label="Show new calls as they arrive (asks every 2 s)">
              <Switch label="Live" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} aria-label="Live" />
            </Tooltip>
            <ColumnChooser visibility={visibility} onChange={setVisibility} />
            <Button
              size="xs"
              variant="default"
              loading={jsonl.progress !== null && !hasSelection}
              disabled={!count.data?.count}
              onClick={() => void jsonl.run([filter], count.data?.count ?? 0)}
            >
              Export JSONL
            </Button>
          </>
        }
      />
      {!hasSelection ? <ExportProgress progress={jsonl.progress} /> : null}
      {projectEmpty ? null : <FilterBar search={search} onChange={setSearch} onClear={clear} seenModels={seenModels} />}
      {hasSelection ? (
        <BulkActions
          selection={selection}
          selectedCount={selectedCount}
          matching={count.data}
          loaded={rows.length}
          filter={filter}
          onSelectAllMatching={() => setSelection({ ids: new Set(rows.map((r) => r.id)), allMatching: true })}
          onClear={() => setSelection(NO_SELECTION)}
          onChanged={refreshAfterChange}
        />
      ) : null}
      <ErrorAlert error={query.error} title="Could not load the logs" />
      {query.isPending ? (
        <Center p="xl">
          <Loader aria-label="Loading logs" />
        </Center>
      ) : projectEmpty ? (
        <LogsEmptyState />
      ) : rows.length === 0 && query.isSuccess ? (
        <Stack align="center" p="xl" gap="xs">
          <Text fw={600}>No logs match these filters</Text>
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={clear}>
              Clear all filters
            </Button>
          </Group>
        </Stack>
      ) : (
        <LogsTable
          rows={rows}
          activeId={activeId}
          arrivedAt={arrivedAt}
          selection={selection}
          onSelectionChange={setSelection}
          onOpen={open}
          hasNextPage={query.hasNextPage}
          isFetchingNextPage={query.isFetchingNextPage}
          fetchNextPage={() => void query.fetchNextPage()}
          visibility={visibility}
        />
      )}
      <Outlet />
    </Stack>
  );
}
