import { Button, Center, Group, Loader, Stack, Switch, Text, Tooltip } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { Outlet, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { useCan } from "../../lib/session";
import { MonitorModal } from "../monitors/monitor-modal";
import { formatCompact, formatNumber } from "../../lib/format";
import { BulkActions, ExportProgress } from "./bulk-actions";
import type { OnFilter } from "./cell-filter";
import { ColumnChooser, useColumnVisibility } from "./column-chooser";
import { LogsEmptyState } from "./empty-state";
import { FilterBar } from "./filter-bar";
import { LogsTable, type LogsTableHandle } from "./logs-table";
import { type Selection, useJsonlExport, useLogCount, useLogs } from "./queries";
import { filterPatch, hasFilters, type LogsSearch, patchSearch, showsInternal, toLogFilter } from "./search";
import { TABLE_CSS } from "./table-css";

const NO_SELECTION: Selection = { ids: new Set(), allMatching: false };

/** "1,234 calls", or "about 2.3M calls" when the count is an estimate. */
export function countLabel(c: { count: number; exact: boolean }): string {
  const noun = c.count === 1 ? "call" : "calls";
  return c.exact ? `${formatNumber(c.count)} ${noun}` : `about ${formatCompact(c.count)} ${noun}`;
}

/** Nothing to list: no calls at all, or none matching; says what to do next. */
function NothingListed({
  search,
  projectEmpty,
  onClear,
  onShowInternal,
}: {
  search: LogsSearch;
  projectEmpty: boolean;
  onClear(): void;
  onShowInternal(): void;
}) {
  const internal = useLogCount({ internal: true }, { enabled: !showsInternal(search) });
  const hidden = internal.data?.count ?? 0;
  const showOwn = hidden ? (
    <Text size="sm">
      Hone's own calls (judges, evaluations, playground) are not listed: {countLabel(internal.data!)}.{" "}
      <Button size="compact-sm" variant="subtle" onClick={onShowInternal}>
        Show Hone's own calls
      </Button>
    </Text>
  ) : null;
  if (projectEmpty) {
    return (
      <Stack>
        <LogsEmptyState />
        {showOwn}
      </Stack>
    );
  }
  return (
    <Stack align="center" p="xl" gap="xs">
      <Text fw={600}>No logs match these filters</Text>
      <Button size="xs" variant="default" onClick={onClear}>
        Clear all filters
      </Button>
      {showOwn}
    </Stack>
  );
}

export function LogsPage() {
  const search = useSearch({ from: "/logs" });
  const navigate = useNavigate({ from: "/logs" });
  const activeId = useParams({ strict: false }).logId ?? null;
  const [live, setLive] = useState(false);
  const [selection, setSelection] = useState<Selection>(NO_SELECTION);
  const [visibility, setVisibility] = useColumnVisibility();
  const [dropped, setDropped] = useState<string[]>([]);
  const tableRef = useRef<LogsTableHandle>(null);

  // Relative ranges ("last hour") are fixed when the filter changes, so pages agree with each other.
  const searchKey = JSON.stringify(search);
  // biome-ignore lint/correctness/useExhaustiveDependencies: searchKey is the search's value
  const filter = useMemo(() => toLogFilter(search), [searchKey]);
  const { query, rows, arrivedAt } = useLogs(filter, live);
  const count = useLogCount(filter, { live });
  const jsonl = useJsonlExport();
  const [monitoring, setMonitoring] = useState(false);
  const canMonitor = useCan("member");
  // A monitor watches the calls to come: the filter without its time range (offered as a backfill).
  const { from: since, to: _until, ...watched } = filter;

  const setSearch = useCallback(
    (patch: Partial<LogsSearch>) => {
      setSelection(NO_SELECTION);
      void navigate({ search: (prev: LogsSearch) => patchSearch(prev, patch), replace: true });
    },
    [navigate],
  );
  // Clearing the filters keeps the choice to list Hone's own calls (a view, not a filter).
  const clear = useCallback(() => {
    setSelection(NO_SELECTION);
    void navigate({ search: (prev: LogsSearch) => (prev.internal ? { internal: 1 as const } : {}), replace: true });
  }, [navigate]);
  const open = useCallback((logId: string) => void navigate({ to: "/logs/$logId", params: { logId }, search: (s: LogsSearch) => s }), [navigate]);
  const onFilter = useCallback<OnFilter>(
    (field, value, exclude) => {
      setSelection(NO_SELECTION);
      void navigate({ to: "/logs", search: (prev: LogsSearch) => patchSearch(prev, filterPatch(prev, field, value, exclude)), replace: true });
    },
    [navigate],
  );

  // A drawer that closes gives the keyboard back to the row it showed.
  const lastOpen = useRef<string | null>(null);
  useEffect(() => {
    if (lastOpen.current && !activeId) tableRef.current?.focusRow(lastOpen.current);
    lastOpen.current = activeId;
  }, [activeId]);

  const seenModels = useMemo(() => [...new Set(rows.slice(0, 500).flatMap((r) => (r.model ? [r.model] : [])))], [rows]);
  const selectedCount = selection.allMatching ? (count.data ?? { count: 0, exact: false }) : { count: selection.ids.size, exact: true };
  const hasSelection = selection.allMatching || selection.ids.size > 0;
  const phone = useMediaQuery("(max-width: 48em)") ?? false;
  const [filtersOpen, setFiltersOpen] = useState(false);
  const filtersSet = Object.keys(search).filter((k) => k !== "internal").length;
  const projectEmpty = query.isSuccess && rows.length === 0 && !hasFilters(search) && !showsInternal(search);

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
          <Group gap="xs" justify="flex-end">
            <Tooltip label="Show new calls as they arrive (asks every 2 s)">
              <Switch label="Live" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} aria-label="Live" />
            </Tooltip>
            <ColumnChooser visibility={visibility} onChange={setVisibility} dropped={dropped} />
            {canMonitor ? (
              <Tooltip label="Add the calls matching these filters to a dataset as they come">
                <Button size="xs" variant="default" onClick={() => setMonitoring(true)}>
                  Monitor these calls
                </Button>
              </Tooltip>
            ) : null}
            <Button
              size="xs"
              variant="default"
              loading={jsonl.progress !== null && !hasSelection}
              disabled={!count.data?.count}
              onClick={() => void jsonl.run([filter], count.data?.count ?? 0)}
            >
              Export JSONL
            </Button>
          </Group>
        }
      />
      {!hasSelection ? <ExportProgress progress={jsonl.progress} /> : null}
      {monitoring ? (
        <MonitorModal
          opened
          onClose={() => setMonitoring(false)}
          filter={watched}
          backfillFrom={since == null ? null : new Date(since as string).toISOString()}
        />
      ) : null}
      {projectEmpty ? null : phone && !filtersOpen ? (
        // A phone shows rows first: the filters open behind a button that counts those set.
        <Group mb="xs">
          <Button size="xs" variant="default" onClick={() => setFiltersOpen(true)} aria-expanded={false}>
            {filtersSet ? `Filters (${filtersSet})` : "Filters"}
          </Button>
        </Group>
      ) : (
        <>
          {phone ? (
            <Group mb="xs">
              <Button size="xs" variant="default" onClick={() => setFiltersOpen(false)} aria-expanded>
                Hide filters
              </Button>
            </Group>
          ) : null}
          <FilterBar search={search} onChange={setSearch} onClear={clear} seenModels={seenModels} collapsible />
        </>
      )}
      {hasSelection ? (
        <BulkActions
          selection={selection}
          selectedCount={selectedCount}
          matching={count.data}
          loaded={rows.length}
          filter={filter}
          onSelectAllMatching={() => setSelection({ ids: new Set(rows.map((r) => r.id)), allMatching: true })}
          onClear={() => setSelection(NO_SELECTION)}
        />
      ) : null}
      <ErrorAlert error={query.error} title="Could not load the logs" />
      {query.isPending ? (
        <Center p="xl">
          <Loader aria-label="Loading logs" />
        </Center>
      ) : rows.length === 0 && query.isSuccess ? (
        <NothingListed search={search} projectEmpty={projectEmpty} onClear={clear} onShowInternal={() => setSearch({ internal: 1 })} />
      ) : (
        <LogsTable
          ref={tableRef}
          rows={rows}
          activeId={activeId}
          arrivedAt={arrivedAt}
          selection={selection}
          onSelectionChange={setSelection}
          onOpen={open}
          onFilter={onFilter}
          q={search.q}
          hasNextPage={query.hasNextPage}
          isFetchingNextPage={query.isFetchingNextPage}
          fetchNextPage={() => void query.fetchNextPage()}
          visibility={visibility}
          onDroppedChange={setDropped}
        />
      )}
      <Outlet />
    </Stack>
  );
}
