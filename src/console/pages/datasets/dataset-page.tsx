import { Alert, Button, Center, Group, Loader, Paper, Stack, Text } from "@mantine/core";
import { useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useMemo, useRef, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { plural } from "../../lib/format";
import { BulkBar } from "./bulk-bar";
import { type DatasetDialog, DatasetHeader, SharedSystemPrompt } from "./dataset-header";
import { EntriesCards } from "./entries-cards";
import { EntriesTable } from "./entries-table";
import { ENTRY_CARD_CSS } from "./entry-card";
import { EntryDrawer } from "./entry-drawer";
import { EntryFilters } from "./entry-filters";
import { sharedSystemPrompt } from "./entry-preview";
import { ImportLogsModal, UploadModal, useDatasetExport } from "./fill";
import { PruningModal } from "./pruning-modal";
import { QualityModal } from "./quality";
import { RelabelRunsModal } from "../relabel/relabel-runs-modal";
import { type Entry, type EntrySelection, NO_SELECTION, useCriteria, useDataset, useDatasetTasks, useEntries, useEntry, useEntryCount } from "./queries";
import { type EntriesSearch, entryFilterOf, viewOf } from "./search";

/** One dataset: its entries as a dense table (or cards), filtered, selected in bulk, opened one at a time. */
export function DatasetPage() {
  const { datasetId } = useParams({ from: "/datasets/$datasetId" });
  const search = useSearch({ from: "/datasets/$datasetId" }) as EntriesSearch;
  const navigate = useNavigate();
  const dataset = useDataset(datasetId);
  const criteria = useCriteria();
  const searchKey = JSON.stringify({ ...search, view: undefined, entry: undefined });
  // biome-ignore lint/correctness/useExhaustiveDependencies: searchKey is the filter part of the search
  const filter = useMemo(() => entryFilterOf(search), [searchKey]);
  const filtered = Object.values(filter).some((v) => v !== null);
  const count = useEntryCount(datasetId, filter);
  const pending = useEntryCount(datasetId, { pendingReview: true });
  const { query: entries, items: rows } = useEntries(datasetId, filter);
  const tasks = useDatasetTasks(datasetId);
  const exporter = useDatasetExport(datasetId, dataset.data?.name ?? "dataset");
  const [selection, setSelection] = useState<EntrySelection>(NO_SELECTION);
  // The drawer: an entry (its id in the URL, so it has a link of its own) or a new one being added.
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState(false);
  const openId = search.entry ?? null;
  const [dialog, setDialog] = useState<DatasetDialog | null>(null);
  // The entry shown in the drawer: the row as loaded now (an edit puts the saved entry in its place),
  // else read by id (a link to an entry not on the loaded pages).
  const lastOpen = useRef<Entry | null>(null);
  const loadedEntry = openId ? (rows.find((r) => r.id === openId) ?? null) : null;
  const single = useEntry(datasetId, openId, loadedEntry !== null);
  const openEntry = openId ? (loadedEntry ?? single.data ?? (lastOpen.current?.id === openId ? lastOpen.current : null)) : null;
  lastOpen.current = openEntry;

  const setSearch = (patch: Partial<EntriesSearch>) => {
    if (Object.keys(patch).some((k) => k !== "view" && k !== "entry")) setSelection(NO_SELECTION);
    void navigate({ to: "/datasets/$datasetId", params: { datasetId }, search: (old) => ({ ...(old as EntriesSearch), ...patch }), replace: true });
  };
  const openDrawer = (id: string, edit = false) => {
    setAdding(false);
    setEditing(edit);
    setSearch({ entry: id });
  };
  const closeDrawer = () => {
    setAdding(false);
    if (openId) setSearch({ entry: undefined });
  };
  // Shown once when every selected row (or, with none selected, every loaded row) starts with it.
  const picked = selection.allMatching || selection.ids.size === 0 ? rows : rows.filter((r) => selection.ids.has(r.id));
  const shared = useMemo(() => sharedSystemPrompt(picked), [picked]);
  const hasSelection = selection.allMatching || selection.ids.size > 0;
  const matching = count.data?.count ?? null;
  const view = viewOf(search);
  const listProps = {
    rows,
    criterionNames: criteria.names,
    selection,
    onSelectionChange: setSelection,
    hasNextPage: entries.hasNextPage,
    isFetchingNextPage: entries.isFetchingNextPage,
    fetchNextPage: () => void entries.fetchNextPage(),
  };

  if (dataset.error) return <ErrorAlert error={dataset.error} title="Dataset not found" />;
  return (
    // The page fills the window below the header; the list scrolls inside it, the bars stay in view.
    <Stack gap={0} style={{ height: "calc(100dvh - var(--app-shell-header-height, 64px) - 2 * var(--mantine-spacing-md))", minHeight: 560 }}>
      <style>{ENTRY_CARD_CSS}</style>
      <DatasetHeader
        dataset={dataset.data}
        runningTasks={tasks.running.length}
        exportProgress={exporter.progress}
        onDialog={(d) => {
          if (d !== "add") return setDialog(d);
          if (openId) setSearch({ entry: undefined });
          setAdding(true);
        }}
        onExport={() => void exporter.run(search)}
      />
      <EntryFilters search={search} criteria={criteria.data ?? []} matching={matching} onChange={setSearch} />
      {pending.data?.count || search.review ? (
        <Alert color="violet" variant="light" mb="sm" p="xs" data-testid="review-banner">
          <Group justify="space-between">
            <Text size="sm">
              {plural(pending.data?.count ?? 0, "relabelled entry", "relabelled entries")} {pending.data?.count === 1 ? "awaits" : "await"} your review.
            </Text>
            <Button
              size="xs"
              variant={search.review ? "filled" : "light"}
              color="violet"
              onClick={() => setSearch({ review: search.review ? undefined : true })}
            >
              {search.review ? "Show all entries" : "Review them"}
            </Button>
          </Group>
        </Alert>
      ) : null}
      {hasSelection ? (
        <BulkBar
          datasetId={datasetId}
          datasetName={dataset.data?.name ?? "the dataset"}
          selection={selection}
          filter={filter}
          matching={matching}
          filtered={filtered}
          onSelectionChange={setSelection}
        />
      ) : null}
      {shared !== null ? (
        <SharedSystemPrompt
          prompt={shared}
          of={selection.ids.size && !selection.allMatching ? `the ${picked.length} selected entries` : `the ${picked.length} entries loaded`}
        />
      ) : null}
      <ErrorAlert error={entries.error} />
      {single.error ? <ErrorAlert error={single.error} title="That entry is not in this dataset" /> : null}
      {entries.isPending ? (
        <Center p="xl">
          <Loader aria-label="Loading entries" />
        </Center>
      ) : rows.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>No entries {filtered ? "match these filters" : "yet"}</Text>
          <Text size="sm" c="dimmed">
            Add one by hand, upload a JSONL file, or import calls from your logs.
          </Text>
        </Paper>
      ) : view === "cards" ? (
        <EntriesCards {...listProps} sharedSystem={shared} onEdit={(e) => openDrawer(e.id, true)} />
      ) : (
        <EntriesTable {...listProps} activeId={openId} onOpen={(e) => openDrawer(e.id)} />
      )}
      {adding || openEntry ? (
        <EntryDrawer
          key={adding ? "new" : (openEntry?.id ?? "new")}
          datasetId={datasetId}
          entry={adding ? null : openEntry}
          position={openEntry && !adding && rows.includes(openEntry) ? `Entry ${rows.indexOf(openEntry) + 1} of ${matching ?? rows.length}` : null}
          criterionNames={criteria.names}
          sharedSystem={shared}
          startEditing={!adding && editing}
          onClose={closeDrawer}
        />
      ) : null}
      {dialog === "upload" ? <UploadModal datasetId={datasetId} onClose={() => setDialog(null)} /> : null}
      {dialog === "import" ? <ImportLogsModal datasetId={datasetId} onClose={() => setDialog(null)} /> : null}
      {dialog === "quality" ? <QualityModal datasetId={datasetId} tasks={tasks.data ?? []} onClose={() => setDialog(null)} /> : null}
      {dialog === "relabel" ? <RelabelRunsModal datasetId={datasetId} onClose={() => setDialog(null)} /> : null}
      {dialog === "pruning" ? <PruningModal datasetId={datasetId} onClose={() => setDialog(null)} /> : null}
    </Stack>
  );
}
