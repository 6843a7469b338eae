import { Alert, Badge, Button, Checkbox, Group, Loader, Paper, Select, Stack, Text, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { modals } from "@mantine/modals";
import { notifications } from "@mantine/notifications";
import { type InfiniteData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useEffect, useMemo, useRef, useState } from "react";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatNumber, formatTime, plural } from "../../lib/format";
import { errorMessageOf, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { Message, toolNamesOf } from "../logs/conversation";
import { type Entry, EntryEditor } from "./entry-editor";
import { ImportLogsModal, UploadModal, useDatasetExport } from "./fill";
import { QualityModal, RelabelReview, useDatasetTasks } from "./quality";
import { type EntriesSearch, entryFilterOf, JUDGEMENTS, SOURCES } from "./search";

type Page = RouterOutputs["datasets"]["listEntries"];
const PAGE_SIZE = 50;
const SOURCE_LABELS: Record<string, string> = { log: "from a log", upload: "uploaded", manual: "by hand / API" };

function EntryCard({
  entry,
  selected,
  onSelect,
  onEdit,
  onReviewed,
  criterionNames,
}: {
  criterionNames: Map<string, string>;
  entry: Entry;
  selected: boolean;
  onSelect(v: boolean): void;
  onEdit(): void;
  onReviewed(): void;
}) {
  const messages = entry.messages as unknown[];
  const toolNames = toolNamesOf(messages);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="entry" data-entry-id={entry.id}>
      <Group justify="space-between" mb="xs" wrap="nowrap">
        <Group gap="xs">
          <Checkbox aria-label={`Select entry ${entry.id}`} checked={selected} onChange={(e) => onSelect(e.currentTarget.checked)} />
          <Badge variant="light" color={entry.split === "TRAIN" ? "indigo" : "grape"}>
            {entry.split}
          </Badge>
          <Badge variant="outline" color="gray" tt="none">
            {SOURCE_LABELS[entry.source] ?? entry.source}
          </Badge>
          {entry.verdicts.map((v) => (
            <Badge key={v.criterionId} variant="light" color={v.judgement === "PASS" ? "teal" : v.judgement === "FAIL" ? "red" : "gray"} tt="none">
              {criterionNames.get(v.criterionId) ?? v.criterionId.slice(0, 14)}: {v.judgement ?? "error"}
            </Badge>
          ))}
          <Text size="xs" c="dimmed">
            {formatTime(entry.createdAt)}
          </Text>
        </Group>
        <Button size="xs" variant="default" onClick={onEdit} aria-label={`Edit entry ${entry.id}`}>
          Edit
        </Button>
      </Group>
      <Stack gap={6}>
        {entry.originalMessages ? <RelabelReview entry={entry} onDone={onReviewed} /> : null}
        {messages.map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; their order is their identity
          <Message key={i} message={m} scope={`${entry.id}-${i}`} toolNames={toolNames} />
        ))}
        {entry.tools?.length ? (
          <Text size="xs" c="dimmed">
            Tools: {(entry.tools as { function?: { name?: string } }[]).map((t) => t.function?.name ?? "?").join(", ")}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}

export function DatasetPage() {
  const { datasetId } = useParams({ from: "/datasets/$datasetId" });
  const search = useSearch({ from: "/datasets/$datasetId" }) as EntriesSearch;
  const navigate = useNavigate();
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const dataset = useQuery(trpc.datasets.get.queryOptions({ datasetId }));
  const criteria = useQuery(trpc.criteria.list.queryOptions());
  const criterionNames = new Map((criteria.data ?? []).map((c) => [c.id, c.name]));
  const filter = entryFilterOf(search);
  const count = useQuery(trpc.datasets.countEntries.queryOptions({ datasetId, filter }));
  const queryKey = ["dataset-entries", datasetId, filter] as const;
  const entries = useInfiniteQuery<Page, Error, InfiniteData<Page, string | null>, typeof queryKey, string | null>({
    queryKey,
    initialPageParam: null,
    queryFn: ({ pageParam, signal }) => client.datasets.listEntries.query({ datasetId, ...filter, first: PAGE_SIZE, after: pageParam }, { signal }),
    getNextPageParam: (last) => (last.hasNextPage ? last.endCursor : undefined),
  });
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<{ entry: Entry | null } | null>(null);
  const [dialog, setDialog] = useState<"upload" | "import" | "quality" | null>(null);
  const exporter = useDatasetExport(datasetId, dataset.data?.name ?? "dataset");
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["dataset-entries", datasetId] });
    void queryClient.invalidateQueries({ queryKey: trpc.datasets.get.queryKey({ datasetId }) });
    void queryClient.invalidateQueries({ queryKey: trpc.datasets.countEntries.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.datasets.list.queryKey() });
  };
  const tasks = useDatasetTasks(datasetId, refresh);
  const runningTasks = tasks.data?.filter((t) => t.status === "QUEUED" || t.status === "RUNNING") ?? [];
  const pending = useQuery(trpc.datasets.countEntries.queryOptions({ datasetId, filter: { pendingReview: true } }));
  const setSearch = (patch: Partial<EntriesSearch>) =>
    void navigate({ to: "/datasets/$datasetId", params: { datasetId }, search: (old) => ({ ...(old as EntriesSearch), ...patch }), replace: true });
  const setText = useDebouncedCallback((q: string) => setSearch({ q: q.trim() || undefined }), 350);
  const ids = [...selected];
  const afterBulk = (message: string) => {
    notifications.show({ message });
    setSelected(new Set());
    refresh();
  };
  const onError = (err: unknown) => notifications.show({ color: "red", title: "Not done", message: errorMessageOf(err) });
  const remove = useMutation(
    trpc.datasets.deleteEntries.mutationOptions({ onSuccess: (r) => afterBulk(`${plural(r.deleted, "entry", "entries")} deleted`), onError }),
  );
  const resplit = useMutation(
    trpc.datasets.setSplit.mutationOptions({ onSuccess: (r) => afterBulk(`${plural(r.updated, "entry", "entries")} moved`), onError }),
  );
  const rows = useMemo(() => entries.data?.pages.flatMap((p) => p.entries) ?? [], [entries.data]);
  const listRef = useRef<HTMLDivElement>(null);
  const virtualizer = useWindowVirtualizer({ count: rows.length, estimateSize: () => 220, overscan: 4, scrollMargin: listRef.current?.offsetTop ?? 0 });
  const virtualItems = virtualizer.getVirtualItems();
  // Infinite scroll: the next keyset page is fetched as the last loaded entries come into view.
  const lastIndex = virtualItems.at(-1)?.index ?? -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = entries;
  useEffect(() => {
    if (lastIndex >= rows.length - 5 && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [lastIndex, rows.length, hasNextPage, isFetchingNextPage, fetchNextPage]);
  const d = dataset.data;

  if (dataset.error) return <ErrorAlert error={dataset.error} title="Dataset not found" />;
  return (
    <>
      <PageHeader
        title={d?.name ?? "Dataset"}
        description={
          d ? (
            <span data-testid="dataset-counts">
              {formatNumber(d.entryCount)} entries · {formatNumber(d.trainCount)} train · {formatNumber(d.testCount)} test · {formatNumber(d.fineTuneCount)}{" "}
              fine-tunes · <Link to="/datasets">all datasets</Link>
            </span>
          ) : null
        }
        actions={
          <>
            <Button variant="default" onClick={() => setEditing({ entry: null })}>
              Add entry
            </Button>
            <Button variant="default" onClick={() => setDialog("upload")}>
              Upload JSONL
            </Button>
            <Button variant="default" onClick={() => setDialog("import")}>
              Import from logs
            </Button>
            <Button variant="default" onClick={() => setDialog("quality")}>
              {runningTasks.length ? `Quality (${runningTasks.length} running)` : "Judge / relabel"}
            </Button>
            <Button onClick={() => void exporter.run(search)} loading={exporter.progress !== null}>
              {exporter.progress !== null ? `Exporting ${formatNumber(exporter.progress)}…` : "Export JSONL"}
            </Button>
          </>
        }
      />
      <Group gap="xs" align="flex-end" mb="sm" role="search" aria-label="Entry filters">
        <Select
          label="Split"
          w={120}
          data={["TRAIN", "TEST"]}
          value={search.split ?? null}
          onChange={(v) => setSearch({ split: (v as EntriesSearch["split"]) ?? undefined })}
          clearable
          placeholder="any"
        />
        <Select
          label="Source"
          w={160}
          data={SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s]! }))}
          value={search.source ?? null}
          onChange={(v) => setSearch({ source: (v as EntriesSearch["source"]) ?? undefined })}
          clearable
          placeholder="any"
        />
        <Select
          label="Verdict of criterion"
          w={220}
          data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
          value={search.criterion ?? null}
          onChange={(v) => setSearch({ criterion: v ?? undefined })}
          clearable
          placeholder="any"
        />
        <Select
          label="Verdict"
          w={110}
          data={[...JUDGEMENTS]}
          value={search.criterion ? (search.judgement ?? "FAIL") : null}
          onChange={(v) => setSearch({ judgement: (v as EntriesSearch["judgement"]) ?? undefined })}
          disabled={!search.criterion}
          allowDeselect={false}
        />
        <TextInput label="Text" w={240} placeholder="in the messages" defaultValue={search.q ?? ""} onChange={(e) => setText(e.currentTarget.value)} />
        <Text size="sm" c="dimmed" data-testid="entry-count" pb={6}>
          {count.data ? `${formatNumber(count.data.count)} entries match` : ""}
        </Text>
      </Group>
      {pending.data?.count || search.review ? (
        <Alert color="violet" variant="light" mb="sm" data-testid="review-banner">
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
      {selected.size ? (
        <Paper withBorder p="xs" mb="sm" radius="md">
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {selected.size} selected
            </Text>
            <Button size="xs" variant="default" onClick={() => resplit.mutate({ datasetId, entryIds: ids, split: "TRAIN" })}>
              Move to TRAIN
            </Button>
            <Button size="xs" variant="default" onClick={() => resplit.mutate({ datasetId, entryIds: ids, split: "TEST" })}>
              Move to TEST
            </Button>
            <Button
              size="xs"
              color="red"
              variant="light"
              onClick={() =>
                modals.openConfirmModal({
                  title: `Delete ${selected.size} entries?`,
                  children: <Text size="sm">They are removed from {d?.name}. This cannot be undone.</Text>,
                  labels: { confirm: "Delete entries", cancel: "Cancel" },
                  confirmProps: { color: "red" },
                  onConfirm: () => remove.mutate({ datasetId, entryIds: ids }),
                })
              }
            >
              Delete
            </Button>
            <Button size="xs" variant="subtle" onClick={() => setSelected(new Set())}>
              Clear selection
            </Button>
          </Group>
        </Paper>
      ) : null}
      <ErrorAlert error={entries.error} />
      {entries.isPending ? <Loader aria-label="Loading entries" /> : null}
      {entries.data && rows.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>No entries {Object.values(search).some(Boolean) ? "match these filters" : "yet"}</Text>
          <Text size="sm" c="dimmed">
            Add one by hand, upload a JSONL file, or import calls from your logs.
          </Text>
        </Paper>
      ) : null}
      {/* Virtualised: only the entries near the window are in the page, however many are loaded. */}
      <div ref={listRef} style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualItems.map((v) => {
          const e = rows[v.index]!;
          return (
            <div
              key={e.id}
              data-index={v.index}
              ref={virtualizer.measureElement}
              style={{
                position: "absolute",
                top: 0,
                left: 0,
                width: "100%",
                paddingBottom: 12,
                transform: `translateY(${v.start - virtualizer.options.scrollMargin}px)`,
              }}
            >
              <EntryCard
                entry={e}
                selected={selected.has(e.id)}
                onSelect={(on) =>
                  setSelected((old) => {
                    const next = new Set(old);
                    if (on) next.add(e.id);
                    else next.delete(e.id);
                    return next;
                  })
                }
                onEdit={() => setEditing({ entry: e })}
                onReviewed={refresh}
                criterionNames={criterionNames}
              />
            </div>
          );
        })}
      </div>
      {entries.hasNextPage ? (
        <Group justify="center" my="md">
          <Button variant="default" onClick={() => void entries.fetchNextPage()} loading={entries.isFetchingNextPage}>
            Load {PAGE_SIZE} more
          </Button>
        </Group>
      ) : null}
      {editing ? <EntryEditor datasetId={datasetId} entry={editing.entry} onClose={() => setEditing(null)} onSaved={refresh} /> : null}
      {dialog === "upload" ? <UploadModal datasetId={datasetId} onClose={() => setDialog(null)} onDone={refresh} /> : null}
      {dialog === "import" ? <ImportLogsModal datasetId={datasetId} onClose={() => setDialog(null)} onDone={refresh} /> : null}
      {dialog === "quality" ? <QualityModal datasetId={datasetId} tasks={tasks.data ?? []} onClose={() => setDialog(null)} /> : null}
    </>
  );
}
