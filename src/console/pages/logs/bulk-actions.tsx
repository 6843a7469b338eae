import { Alert, Autocomplete, Button, Group, List, Modal, Paper, Progress, Stack, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatNumber } from "../../lib/format";
import { errorMessageOf, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import type { Selection } from "./logs-table";
import type { LogFilterInput } from "./search";

/** The API takes at most this many ids at once; a bigger selection goes in several calls. */
const IDS_PER_CALL = 1000;
const EXPORT_PAGE = 200;

const chunk = <T,>(xs: T[], n: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
};

/** The filters a selection stands for: the whole filter, or the chosen ids (in batches). */
export function selectionFilters(selection: Selection, filter: LogFilterInput): LogFilterInput[] {
  if (selection.allMatching) return [filter];
  return chunk([...selection.ids], IDS_PER_CALL).map((ids) => ({ ids }));
}

type Props = {
  selection: Selection;
  selectedCount: { count: number; exact: boolean };
  matching: { count: number; exact: boolean } | undefined;
  loaded: number;
  filter: LogFilterInput;
  onSelectAllMatching(): void;
  onClear(): void;
  onChanged(): void;
};

type ImportResult = RouterOutputs["datasets"]["importLogs"];

function AddToDatasetModal({ opened, onClose, filters, count }: { opened: boolean; onClose(): void; filters: LogFilterInput[]; count: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions(undefined, { enabled: opened }));
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<(ImportResult & { dataset: { id: string; name: string } }) | null>(null);
  const existing = datasets.data?.find((d) => d.name === name.trim());

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      // A new dataset is created by the first import call (newDatasetName); later batches add to it.
      let datasetId = existing?.id ?? null;
      const total: ImportResult = { datasetId: datasetId ?? "", entriesCreated: 0, duplicatesSkipped: 0, invalidLogs: 0, errors: [] };
      for (const filter of filters) {
        const r = await client.datasets.importLogs.mutate(datasetId ? { datasetId, filter } : { newDatasetName: name.trim(), filter });
        datasetId = r.datasetId;
        total.datasetId = r.datasetId;
        total.entriesCreated += r.entriesCreated;
        total.duplicatesSkipped += r.duplicatesSkipped;
        total.invalidLogs += r.invalidLogs;
        total.errors.push(...r.errors.slice(0, 100 - total.errors.length));
      }
      const dataset = { id: total.datasetId, name: existing?.name ?? name.trim() };
      setResult({ ...total, dataset: { id: dataset.id, name: dataset.name } });
      await queryClient.invalidateQueries({ queryKey: trpc.datasets.pathKey() });
      notifications.show({ color: "teal", title: `Added to ${dataset.name}`, message: `${formatNumber(total.entriesCreated)} entries created` });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const close = () => {
    onClose();
    setResult(null);
    setError(null);
    setName("");
  };

  return (
    <Modal opened={opened} onClose={close} title="Add to dataset" size="lg">
      {result ? (
        <Stack data-testid="import-result">
          <Text>
            Imported into <b>{result.dataset.name}</b>:
          </Text>
          <List>
            <List.Item>
              <b>{formatNumber(result.entriesCreated)}</b> entries created
            </List.Item>
            <List.Item>
              <b>{formatNumber(result.duplicatesSkipped)}</b> duplicates skipped
            </List.Item>
            <List.Item>
              <b>{formatNumber(result.invalidLogs)}</b> invalid logs
            </List.Item>
          </List>
          {result.errors.length ? (
            <Alert color="yellow" title="Logs that could not become entries">
              <List size="sm">
                {result.errors.slice(0, 10).map((e) => (
                  <List.Item key={e.logId}>
                    <Text span ff="monospace" size="xs">
                      {e.logId}
                    </Text>
                    : {e.message}
                  </List.Item>
                ))}
              </List>
            </Alert>
          ) : null}
          <Group justify="space-between">
            <Button component={Link} to="/datasets" variant="default">
              Open datasets
            </Button>
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <Stack
          component="form"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Text size="sm">
            {count} selected. Only successful calls (status 200) with a request and an answer become entries; content already in the dataset is skipped.
          </Text>
          <Autocomplete
            label="Dataset"
            description="Choose an existing dataset or type the name of a new one"
            value={name}
            onChange={setName}
            data={(datasets.data ?? []).map((d) => d.name)}
            placeholder="Dataset name"
            required
            data-autofocus
            comboboxProps={{ withinPortal: true }}
          />
          {name.trim() ? (
            <Text size="xs" c="dimmed">
              {existing ? "Adds to the existing dataset." : `Creates a new dataset "${name.trim()}".`}
            </Text>
          ) : null}
          <ErrorAlert error={error} title="Could not add to the dataset" />
          <Button type="submit" loading={busy} disabled={!name.trim()}>
            {existing ? "Add to dataset" : "Create dataset and add"}
          </Button>
        </Stack>
      )}
    </Modal>
  );
}

function TagModal({
  mode,
  onClose,
  filters,
  count,
  onChanged,
}: {
  mode: "set" | "remove" | null;
  onClose(): void;
  filters: LogFilterInput[];
  count: string;
  onChanged(): void;
}) {
  const client = useTRPCClient();
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      let updated = 0;
      for (const filter of filters) {
        const r = await client.logs.setTags.mutate(mode === "set" ? { filter, set: { [key.trim()]: value } } : { filter, remove: [key.trim()] });
        updated += r.updated;
      }
      notifications.show({
        color: "teal",
        title: mode === "set" ? "Tag set" : "Tag removed",
        message: `${formatNumber(updated)} logs updated`,
      });
      onChanged();
      onClose();
      setKey("");
      setValue("");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={mode !== null} onClose={onClose} title={mode === "set" ? "Set a tag" : "Remove a tag"}>
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Text size="sm">{count} selected.</Text>
        <TextInput label="Tag key" value={key} onChange={(e) => setKey(e.currentTarget.value)} required data-autofocus />
        {mode === "set" ? <TextInput label="Tag value" value={value} onChange={(e) => setValue(e.currentTarget.value)} /> : null}
        <ErrorAlert error={error} title="Could not change the tags" />
        <Button type="submit" loading={busy} disabled={!key.trim()}>
          {mode === "set" ? "Set tag" : "Remove tag"}
        </Button>
      </Stack>
    </Modal>
  );
}

function downloadBlob(parts: BlobPart[], name: string) {
  const url = URL.createObjectURL(new Blob(parts, { type: "application/x-ndjson" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Exports logs as a .jsonl download, a page of logs.exportPage at a time, with progress. */
export function useJsonlExport() {
  const client = useTRPCClient();
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const run = async (filters: LogFilterInput[], total: number) => {
    setProgress({ done: 0, total });
    const parts: string[] = [];
    let done = 0;
    try {
      for (const f of filters) {
        let after: string | null = null;
        for (;;) {
          const page: RouterOutputs["logs"]["exportPage"] = await client.logs.exportPage.query({ filter: f, first: EXPORT_PAGE, after });
          for (const line of page.lines) parts.push(`${line}\n`);
          done += page.lines.length;
          setProgress({ done, total: Math.max(total, done) });
          if (!page.hasNextPage || !page.endCursor) break;
          after = page.endCursor;
        }
      }
      downloadBlob(parts, `hone-logs-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`);
      notifications.show({ color: "teal", title: "Export ready", message: `${formatNumber(done)} logs exported` });
    } catch (err) {
      notifications.show({ color: "red", title: "Export failed", message: errorMessageOf(err) });
    } finally {
      setProgress(null);
    }
  };
  return { run, progress };
}

export function ExportProgress({ progress }: { progress: { done: number; total: number } | null }) {
  if (!progress) return null;
  return (
    <Progress
      mt="xs"
      value={progress.total ? (100 * progress.done) / progress.total : 0}
      aria-label={`Exporting: ${progress.done} of ${progress.total}`}
      animated
    />
  );
}

export function BulkActions({ selection, selectedCount, matching, loaded, filter, onSelectAllMatching, onClear, onChanged }: Props) {
  const [adding, setAdding] = useState(false);
  const [tagMode, setTagMode] = useState<"set" | "remove" | null>(null);
  const filters = selectionFilters(selection, filter);
  const countText = `${selectedCount.exact ? "" : "about "}${formatNumber(selectedCount.count)} log${selectedCount.count === 1 ? "" : "s"}`;

  const jsonl = useJsonlExport();
  const exportJsonl = () => jsonl.run(filters, selectedCount.count);
  const exported = jsonl.progress;

  return (
    <Paper withBorder p="xs" mb="xs" role="region" aria-label="Bulk actions">
      <Group gap="xs" justify="space-between">
        <Group gap="xs">
          <Text size="sm" fw={600} data-testid="selection-count">
            {countText} selected
          </Text>
          {!selection.allMatching && matching && matching.count > selection.ids.size ? (
            <Button size="compact-sm" variant="subtle" onClick={onSelectAllMatching}>
              Select all {matching.exact ? "" : "about "}
              {formatNumber(matching.count)} matching the filter
            </Button>
          ) : null}
          {selection.allMatching && loaded < (matching?.count ?? 0) ? (
            <Text size="xs" c="dimmed">
              (including logs not loaded yet)
            </Text>
          ) : null}
          <Button size="compact-sm" variant="subtle" color="gray" onClick={onClear}>
            Clear selection
          </Button>
        </Group>
        <Group gap="xs">
          <Button size="xs" onClick={() => setAdding(true)}>
            Add to dataset
          </Button>
          <Button size="xs" variant="default" onClick={() => setTagMode("set")}>
            Set tag
          </Button>
          <Button size="xs" variant="default" onClick={() => setTagMode("remove")}>
            Remove tag
          </Button>
          <Button size="xs" variant="default" onClick={() => void exportJsonl()} loading={exported !== null}>
            Export JSONL
          </Button>
        </Group>
      </Group>
      <ExportProgress progress={exported} />
      <AddToDatasetModal opened={adding} onClose={() => setAdding(false)} filters={filters} count={countText} />
      <TagModal mode={tagMode} onClose={() => setTagMode(null)} filters={filters} count={countText} onChanged={onChanged} />
    </Paper>
  );
}
