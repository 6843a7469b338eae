import { Alert, Button, Group, Modal, NumberInput, Progress, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMemo, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { FileDrop, RefusedLines } from "../../components/file-drop";
import { formatNumber, plural } from "../../lib/format";
import { errorMessageOf } from "../../lib/trpc";
import { FilterBar } from "../logs/filter-bar";
import { type LogsSearch, toLogFilter } from "../logs/search";
import { useExportLines, useImportLogs, useImportPreview, useJsonlUpload } from "./queries";
import { type EntriesSearch, entryFilterOf } from "./search";

/** Uploads a JSONL file in chunks of lines, with a progress bar and every bad line listed by number. */
export function UploadModal({ datasetId, onClose }: { datasetId: string; onClose(): void }) {
  const { state, upload } = useJsonlUpload(datasetId);
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ "aria-label": "Close" }} title="Upload JSONL" size="lg">
      <Stack>
        <FileDrop
          onFile={(file) => void upload(file)}
          title="Drop a .jsonl file here, or click to choose one"
          hint={
            <>
              One entry per line: {"{"}"messages": [...], "tools"?, "tool_choice"?, "response_format"?, "split"?, "metadata"?{"}"}. Good lines are kept; bad
              ones are listed below with their line numbers.
            </>
          }
        />
        {state ? (
          <Stack gap="xs">
            <Progress
              value={state.linesTotal ? (100 * state.linesDone) / state.linesTotal : 100}
              aria-label="Upload progress"
              animated={!state.done && !state.failed}
            />
            <Text size="sm" data-testid="upload-summary">
              {formatNumber(state.linesDone)} of {plural(state.linesTotal, "line")} read; {plural(state.created, "entry", "entries")} created;{" "}
              {plural(state.errors.length, "line")} refused{state.done ? "." : "…"}
            </Text>
            {state.failed ? (
              <Alert color="red" role="alert" title="Upload stopped">
                {state.failed}
              </Alert>
            ) : null}
            <RefusedLines errors={state.errors} />
          </Stack>
        ) : null}
      </Stack>
    </Modal>
  );
}

/**
 * Imports logs by a filter, built in the Logs page's own filter bar, with the number that will come
 * in shown before anything is imported.
 */
export function ImportLogsModal({ datasetId, onClose }: { datasetId: string; onClose(): void }) {
  const [search, setSearch] = useState<LogsSearch>({});
  const [sample, setSample] = useState<number | string>("");
  // Fixed when the filter changes, not at every render: the count's query key must stay put.
  const filter = useMemo(() => toLogFilter(search), [search]);
  const preview = useImportPreview(filter);
  const sampleSize = typeof sample === "number" && sample > 0 ? sample : null;
  const expected = preview.data ? (sampleSize ? Math.min(sampleSize, preview.data.count) : preview.data.count) : null;
  const importLogs = useImportLogs();
  const onSuccess = (r: { entriesCreated: number; duplicatesSkipped: number }) =>
    notifications.show({ message: `${plural(r.entriesCreated, "entry", "entries")} created, ${plural(r.duplicatesSkipped, "duplicate")} skipped` });
  const result = importLogs.data;
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ "aria-label": "Close" }} title="Import from logs" size="90%">
      <Stack>
        <FilterBar
          search={search}
          onChange={(patch) =>
            setSearch((old) => {
              const next: Record<string, unknown> = { ...old, ...patch };
              for (const k of Object.keys(next)) if (next[k] === undefined || next[k] === "") delete next[k];
              return next as LogsSearch;
            })
          }
          onClear={() => setSearch({})}
          seenModels={[]}
        />
        <NumberInput
          label="Random sample size"
          description="Leave empty to import every matching call"
          value={sample}
          onChange={setSample}
          min={1}
          max={100000}
          w={260}
        />
        <Text size="sm" data-testid="import-preview">
          {preview.isFetching || expected === null
            ? "Counting matching calls…"
            : `${plural(expected, "successful call")} ${sampleSize ? "sampled from those that match" : expected === 1 ? "matches" : "match"}${preview.data?.exact ? "" : " (estimated)"}`}
        </Text>
        <ErrorAlert error={preview.error ?? importLogs.error} />
        {result ? (
          <Alert color="teal" title="Imported" data-testid="import-result">
            {plural(result.entriesCreated, "entry", "entries")} created, {plural(result.duplicatesSkipped, "duplicate")} skipped,{" "}
            {plural(result.invalidLogs ?? 0, "invalid log")}.
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button onClick={() => importLogs.mutate({ datasetId, filter, sampleSize }, { onSuccess })} loading={importLogs.isPending} disabled={!expected}>
            {expected ? `Import ${plural(expected, "call")}` : "Import calls"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Downloads the entries matching `search` as JSONL, page by page, with progress. */
export function useDatasetExport(datasetId: string, name: string) {
  const readLines = useExportLines(datasetId);
  const [progress, setProgress] = useState<number | null>(null);
  const run = async (search: EntriesSearch) => {
    const filter = entryFilterOf(search);
    setProgress(0);
    try {
      const lines = await readLines(filter, setProgress);
      const blob = new Blob(lines.length ? [`${lines.join("\n")}\n`] : [], { type: "application/jsonl" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `${name.replace(/[^\w.-]+/g, "_")}${filter.split ? `-${filter.split.toLowerCase()}` : ""}.jsonl`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      notifications.show({ message: `Exported ${plural(lines.length, "entry", "entries")}` });
    } catch (err) {
      notifications.show({ color: "red", title: "Export failed", message: errorMessageOf(err) });
    } finally {
      setProgress(null);
    }
  };
  return { run, progress };
}
