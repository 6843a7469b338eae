import { Alert, Button, Group, Modal, NumberInput, Progress, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { FileDrop, RefusedLines } from "../../components/file-drop";
import { formatNumber } from "../../lib/format";
import { errorMessageOf, useTRPC, useTRPCClient } from "../../lib/trpc";
import { FilterBar } from "../logs/filter-bar";
import { type LogsSearch, toLogFilter } from "../logs/search";
import type { EntriesSearch } from "./search";
import { entryFilterOf } from "./search";

/** Lines per importJsonl call: small enough for the body limit, large enough to be quick. */
const CHUNK_LINES = 500;

type UploadState = { linesDone: number; linesTotal: number; created: number; errors: { line: number; message: string }[]; done: boolean; failed?: string };

/** Uploads a JSONL file in chunks of lines, with a progress bar and every bad line listed by number. */
export function UploadModal({ datasetId, onClose, onDone }: { datasetId: string; onClose(): void; onDone(): void }) {
  const client = useTRPCClient();
  const [state, setState] = useState<UploadState | null>(null);
  const upload = async (file: File) => {
    const lines = (await file.text()).split("\n");
    if (lines.at(-1) === "") lines.pop();
    const s: UploadState = { linesDone: 0, linesTotal: lines.length, created: 0, errors: [], done: false };
    setState({ ...s });
    try {
      for (let start = 0; start < lines.length; start += CHUNK_LINES) {
        const chunk = lines.slice(start, start + CHUNK_LINES);
        const r = await client.datasets.importJsonl.mutate({ datasetId, jsonl: chunk.join("\n"), firstLine: start + 1 });
        s.linesDone += chunk.length;
        s.created += r.entriesCreated;
        s.errors.push(...r.errors);
        setState({ ...s });
      }
      s.done = true;
    } catch (err) {
      s.failed = errorMessageOf(err);
    }
    setState({ ...s });
    onDone();
  };
  return (
    <Modal opened onClose={onClose} title="Upload JSONL" size="lg">
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
              {formatNumber(state.linesDone)} of {formatNumber(state.linesTotal)} lines read; {formatNumber(state.created)} entries created;{" "}
              {formatNumber(state.errors.length)} lines refused{state.done ? "." : "…"}
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
export function ImportLogsModal({ datasetId, onClose, onDone }: { datasetId: string; onClose(): void; onDone(): void }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState<LogsSearch>({});
  const [sample, setSample] = useState<number | string>("");
  // Fixed when the filter changes, not at every render: the count's query key must stay put.
  const filter = useMemo(() => toLogFilter(search), [search]);
  // Only successful calls become entries: the preview counts what the import will take.
  const preview = useQuery(trpc.logs.count.queryOptions({ filter: { ...filter, statusCode: 200 } }));
  const sampleSize = typeof sample === "number" && sample > 0 ? sample : null;
  const expected = preview.data ? (sampleSize ? Math.min(sampleSize, preview.data.count) : preview.data.count) : null;
  const importLogs = useMutation(
    trpc.datasets.importLogs.mutationOptions({
      onSuccess: (r) => {
        onDone();
        notifications.show({ message: `${formatNumber(r.entriesCreated)} entries created, ${formatNumber(r.duplicatesSkipped)} duplicates skipped` });
      },
    }),
  );
  const result = importLogs.data;
  return (
    <Modal opened onClose={onClose} title="Import from logs" size="90%">
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
            : `${formatNumber(expected)} successful calls ${sampleSize ? "sampled from those that match" : "match"}${preview.data?.exact ? "" : " (estimated)"}`}
        </Text>
        <ErrorAlert error={preview.error ?? importLogs.error} />
        {result ? (
          <Alert color="teal" title="Imported" data-testid="import-result">
            {formatNumber(result.entriesCreated)} entries created, {formatNumber(result.duplicatesSkipped)} duplicates skipped,{" "}
            {formatNumber(result.invalidLogs ?? 0)} invalid logs.
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button onClick={() => importLogs.mutate({ datasetId, filter, sampleSize })} loading={importLogs.isPending} disabled={!expected}>
            Import {expected ? formatNumber(expected) : ""} calls
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Downloads the entries matching `search` as JSONL, page by page, with progress. */
export function useDatasetExport(datasetId: string, name: string) {
  const client = useTRPCClient();
  const [progress, setProgress] = useState<number | null>(null);
  const run = async (search: EntriesSearch) => {
    const { split, source, verdict, search: text } = entryFilterOf(search);
    const lines: string[] = [];
    let after: string | null = null;
    setProgress(0);
    try {
      for (;;) {
        const page: { lines: string[]; endCursor: string | null; hasNextPage: boolean } = await client.datasets.exportPage.query({
          datasetId,
          split,
          source,
          verdict,
          search: text,
          after,
          first: 500,
        });
        lines.push(...page.lines);
        setProgress(lines.length);
        if (!page.hasNextPage) break;
        after = page.endCursor;
      }
      const blob = new Blob(lines.length ? [`${lines.join("\n")}\n`] : [], { type: "application/jsonl" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `${name.replace(/[^\w.-]+/g, "_")}${split ? `-${split.toLowerCase()}` : ""}.jsonl`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      notifications.show({ message: `Exported ${formatNumber(lines.length)} entries` });
    } catch (err) {
      notifications.show({ color: "red", title: "Export failed", message: errorMessageOf(err) });
    } finally {
      setProgress(null);
    }
  };
  return { run, progress };
}
