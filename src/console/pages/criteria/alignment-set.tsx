import { Badge, Button, Group, Kbd, Modal, Paper, Progress, SegmentedControl, Select, Stack, Table, Tabs, Text, Textarea } from "@mantine/core";
import { useHotkeys } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { FileDrop, RefusedLines } from "../../components/file-drop";
import { formatNumber, plural } from "../../lib/format";
import { messageText } from "../../lib/messages";
import { errorMessageOf, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { Message, toolNamesOf } from "../logs/conversation";

export type AlignmentRow = RouterOutputs["criteria"]["alignmentRows"][number];
type Label = "PASS" | "FAIL" | null;

/** The guideline SPEC.md gives: at least 30 labelled rows before the statistics mean much. */
export const RECOMMENDED_LABELS = 30;

export function useAlignmentRows(criterionId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.criteria.alignmentRows.queryOptions({ criterionId }));
}

/** Sets a row's label, updating the cached set at once (and rolling back if the API refuses). */
function useLabel(criterionId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const key = trpc.criteria.alignmentRows.queryKey({ criterionId });
  return useMutation(
    trpc.criteria.labelAlignmentRow.mutationOptions({
      onMutate: async ({ rowId, judgement }) => {
        await queryClient.cancelQueries({ queryKey: key });
        const before = queryClient.getQueryData(key);
        queryClient.setQueryData(key, (rows) => rows?.map((r) => (r.id === rowId ? { ...r, judgement } : r)));
        return { before };
      },
      onError: (err, _v, context) => {
        if (context?.before) queryClient.setQueryData(key, context.before);
        notifications.show({ color: "red", title: "Label not saved", message: errorMessageOf(err) });
      },
    }),
  );
}

function ImportModal({ criterionId, onClose }: { criterionId: string; onClose(): void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [result, setResult] = useState<{ rowsImported: number; errors: { line: number; message: string }[] } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [logIds, setLogIds] = useState("");
  const [datasetId, setDatasetId] = useState<string | null>(null);
  const [split, setSplit] = useState<string>("TEST");
  const done = (r: { rowsImported: number; errors: { line: number; message: string }[] }) => {
    setResult(r);
    void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRows.queryKey({ criterionId }) });
  };
  const run = async (work: () => Promise<{ rowsImported: number; errors: { line: number; message: string }[] }>) => {
    setBusy(true);
    setFailed(null);
    setResult(null);
    try {
      done(await work());
    } catch (err) {
      setFailed(errorMessageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const fromIds = async (input: { logIds?: string[]; entryIds?: string[] }) => {
    const r = await client.criteria.importAlignmentRows.mutate({ criterionId, ...input });
    return { rowsImported: r.rowsImported, errors: r.skipped.map((s, i) => ({ line: i + 1, message: `${s.id}: ${s.message}` })) };
  };
  return (
    <Modal opened onClose={onClose} title="Add rows to the alignment set" size="lg">
      <Tabs defaultValue="upload">
        <Tabs.List mb="md">
          <Tabs.Tab value="upload">Upload JSONL</Tabs.Tab>
          <Tabs.Tab value="logs">From logs</Tabs.Tab>
          <Tabs.Tab value="dataset">From a dataset</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="upload">
          <FileDrop
            onFile={(file) => void run(async () => client.criteria.importAlignmentSet.mutate({ criterionId, jsonl: await file.text() }))}
            title="Drop a .jsonl file here, or click to choose one"
            hint={
              <>
                One row per line, as a fine-tuning line whose last message is the output to judge, with an optional "judgement": "PASS" or "FAIL". Up to 10 MB;
                bad lines are listed by number.
              </>
            }
          />
        </Tabs.Panel>
        <Tabs.Panel value="logs">
          <Stack>
            <Textarea
              label="Log ids"
              description="One per line (copy them from the Logs page). Each call's answer becomes the output to judge."
              value={logIds}
              onChange={(e) => setLogIds(e.currentTarget.value)}
              autosize
              minRows={4}
              maxRows={10}
            />
            <Button
              onClick={() => void run(() => fromIds({ logIds: logIds.split(/\s+/).filter(Boolean).slice(0, 1000) }))}
              disabled={!logIds.trim()}
              loading={busy}
            >
              Add logs
            </Button>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="dataset">
          <Stack>
            <Group grow>
              <Select
                label="Dataset"
                data={(datasets.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
                value={datasetId}
                onChange={setDatasetId}
                searchable
              />
              <Select label="Split" data={["TRAIN", "TEST"]} value={split} onChange={(v) => setSplit(v ?? "TEST")} allowDeselect={false} />
            </Group>
            <Text size="xs" c="dimmed">
              Takes up to 200 entries of the split; each entry's last assistant turn becomes the output to judge.
            </Text>
            <Button
              onClick={() =>
                datasetId &&
                void run(async () => {
                  const page = await client.datasets.listEntries.query({ datasetId, split: split as "TRAIN" | "TEST", first: 200 });
                  return fromIds({ entryIds: page.entries.map((e) => e.id) });
                })
              }
              disabled={!datasetId}
              loading={busy}
            >
              Add entries
            </Button>
          </Stack>
        </Tabs.Panel>
      </Tabs>
      <Stack mt="md" gap="xs">
        {busy ? <Progress value={100} animated aria-label="Importing" /> : null}
        {failed ? (
          <Text c="red" role="alert">
            {failed}
          </Text>
        ) : null}
        {result ? (
          <>
            <Text size="sm" data-testid="alignment-import-summary">
              {plural(result.rowsImported, "row")} added; {plural(result.errors.length, "line")} refused.
            </Text>
            <RefusedLines errors={result.errors} />
          </>
        ) : null}
      </Stack>
    </Modal>
  );
}

/** The row being labelled: its conversation, and the output to judge set apart. */
function RowView({ row }: { row: AlignmentRow }) {
  const messages = row.messages as unknown[];
  const toolNames = toolNamesOf([...messages, row.output]);
  return (
    <Stack gap={6}>
      {messages.map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; their order is their identity
        <Message key={i} message={m} scope={`${row.id}-${i}`} toolNames={toolNames} />
      ))}
      <Paper p={4} radius="md" style={{ outline: "3px solid var(--mantine-color-yellow-filled)" }} data-testid="judged-output">
        <Text size="xs" fw={700} px={6} pb={2}>
          OUTPUT TO JUDGE
        </Text>
        <Message message={row.output} scope={`${row.id}-out`} toolNames={toolNames} />
      </Paper>
    </Stack>
  );
}

function LabelBadge({ label }: { label: Label }) {
  return label ? (
    <Badge color={label === "PASS" ? "teal" : "red"} data-testid="row-label">
      {label}
    </Badge>
  ) : (
    <Badge color="gray" variant="outline" data-testid="row-label">
      unlabelled
    </Badge>
  );
}

/** One row at a time: P passes, F fails, S skips, U (or ⌘/Ctrl+Z) undoes, arrows move. */
function Labeller({ criterionId, rows }: { criterionId: string; rows: AlignmentRow[] }) {
  const label = useLabel(criterionId);
  const firstOpen = Math.max(
    0,
    rows.findIndex((r) => !r.judgement),
  );
  const [index, setIndex] = useState(firstOpen);
  const [history, setHistory] = useState<{ index: number; rowId: string; before: Label }[]>([]);
  const i = Math.min(index, rows.length - 1);
  const row = rows[i];
  const labelled = rows.filter((r) => r.judgement).length;
  const nextOpen = (from: number) => {
    for (let k = 1; k <= rows.length; k++) {
      const j = (from + k) % rows.length;
      if (!rows[j]!.judgement && j !== from) return j;
    }
    return Math.min(from + 1, rows.length - 1);
  };
  const put = (judgement: "PASS" | "FAIL") => {
    if (!row) return;
    setHistory((h) => [...h, { index: i, rowId: row.id, before: row.judgement }]);
    label.mutate({ rowId: row.id, judgement });
    setIndex(nextOpen(i));
  };
  const skip = () => setIndex((n) => Math.min(n + 1, rows.length - 1));
  const undo = () => {
    const last = history.at(-1);
    if (!last) return;
    setHistory((h) => h.slice(0, -1));
    label.mutate({ rowId: last.rowId, judgement: last.before });
    setIndex(last.index);
  };
  useHotkeys([
    ["p", () => put("PASS")],
    ["f", () => put("FAIL")],
    ["s", skip],
    ["u", undo],
    ["mod+z", undo],
    ["ArrowRight", skip],
    ["ArrowLeft", () => setIndex((n) => Math.max(0, n - 1))],
  ]);
  if (!row) return null;
  return (
    <Stack>
      <Paper withBorder p="sm" radius="md">
        <Group justify="space-between">
          <Text size="sm" data-testid="label-progress">
            {formatNumber(labelled)} of {formatNumber(rows.length)} labelled
            {labelled < RECOMMENDED_LABELS ? ` · label at least ${RECOMMENDED_LABELS} for meaningful statistics` : " · enough for meaningful statistics"}
          </Text>
          <Text size="sm" c="dimmed">
            Row {i + 1} of {rows.length}
          </Text>
        </Group>
        <Progress value={(100 * labelled) / rows.length} mt={6} aria-label="Labelling progress" />
        <Progress value={(100 * Math.min(labelled, RECOMMENDED_LABELS)) / RECOMMENDED_LABELS} mt={4} size="xs" color="gray" aria-label="Towards 30 labels" />
      </Paper>
      <Group justify="space-between">
        <Group gap="xs">
          <Button color="teal" onClick={() => put("PASS")} aria-keyshortcuts="p">
            PASS <Kbd ml={6}>P</Kbd>
          </Button>
          <Button color="red" onClick={() => put("FAIL")} aria-keyshortcuts="f">
            FAIL <Kbd ml={6}>F</Kbd>
          </Button>
          <Button variant="default" onClick={skip} aria-keyshortcuts="s">
            Skip <Kbd ml={6}>S</Kbd>
          </Button>
          <Button variant="default" onClick={undo} disabled={!history.length} aria-keyshortcuts="u">
            Undo <Kbd ml={6}>U</Kbd>
          </Button>
        </Group>
        <Group gap="xs">
          <Text size="sm">This row:</Text>
          <LabelBadge label={row.judgement} />
        </Group>
      </Group>
      <div data-testid="labelling-row" data-row-id={row.id}>
        <RowView row={row} />
      </div>
    </Stack>
  );
}

/** Every row with its label (changeable) and the latest verdict of each version that judged it. */
function RowsTable({ criterionId, rows }: { criterionId: string; rows: AlignmentRow[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const label = useLabel(criterionId);
  const [open, setOpen] = useState<AlignmentRow | null>(null);
  const remove = useMutation(
    trpc.criteria.deleteAlignmentRows.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRows.queryKey({ criterionId }) }),
      onError: (err) => notifications.show({ color: "red", title: "Not deleted", message: errorMessageOf(err) }),
    }),
  );
  return (
    <>
      <Table striped aria-label="Alignment rows">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>Last message</Table.Th>
            <Table.Th>Output</Table.Th>
            <Table.Th>Your label</Table.Th>
            <Table.Th>Judge verdicts</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r, n) => (
            <Table.Tr key={r.id} data-testid="alignment-row" data-row-id={r.id}>
              <Table.Td>{n + 1}</Table.Td>
              <Table.Td maw={260}>
                <Text size="sm" lineClamp={2}>
                  {messageText((r.messages as unknown[]).at(-1))}
                </Text>
              </Table.Td>
              <Table.Td maw={320}>
                <Text size="sm" lineClamp={2}>
                  {messageText(r.output)}
                </Text>
              </Table.Td>
              <Table.Td>
                <SegmentedControl
                  size="xs"
                  aria-label={`Label of row ${n + 1}`}
                  data={[
                    { value: "PASS", label: "PASS" },
                    { value: "FAIL", label: "FAIL" },
                    { value: "none", label: "—" },
                  ]}
                  value={r.judgement ?? "none"}
                  onChange={(v) => label.mutate({ rowId: r.id, judgement: v === "none" ? null : (v as "PASS" | "FAIL") })}
                />
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {r.verdicts.map((v) => (
                    <Badge
                      key={v.version}
                      variant="light"
                      color={v.verdict === "PASS" ? "teal" : v.verdict === "FAIL" ? "red" : "gray"}
                      tt="none"
                      title={v.explanation ?? v.error ?? ""}
                    >
                      v{v.version}: {v.verdict ?? "error"}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button size="compact-xs" variant="default" onClick={() => setOpen(r)}>
                    Open
                  </Button>
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    color="red"
                    onClick={() => remove.mutate({ criterionId, rowIds: [r.id] })}
                    aria-label={`Delete row ${n + 1}`}
                  >
                    Delete
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {open ? (
        <Modal opened onClose={() => setOpen(null)} title="Alignment row" size="xl">
          <RowView row={open} />
        </Modal>
      ) : null}
    </>
  );
}

export function AlignmentSetTab({ criterionId, view, setView }: { criterionId: string; view: "label" | "table"; setView(v: "label" | "table"): void }) {
  const rows = useAlignmentRows(criterionId);
  const [importing, setImporting] = useState(false);
  const list = rows.data ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <SegmentedControl
          aria-label="View"
          data={[
            { value: "label", label: "Label one by one" },
            { value: "table", label: "Review all" },
          ]}
          value={view}
          onChange={(v) => setView(v as "label" | "table")}
        />
        <Button onClick={() => setImporting(true)}>Add rows</Button>
      </Group>
      <ErrorAlert error={rows.error} />
      {rows.data && list.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>The alignment set is empty</Text>
          <Text size="sm" c="dimmed">
            Add examples of outputs (upload JSONL, or take logged calls or dataset entries), label each PASS or FAIL, then run the criterion against your
            labels.
          </Text>
        </Paper>
      ) : null}
      {list.length ? view === "label" ? <Labeller criterionId={criterionId} rows={list} /> : <RowsTable criterionId={criterionId} rows={list} /> : null}
      {importing ? <ImportModal criterionId={criterionId} onClose={() => setImporting(false)} /> : null}
    </Stack>
  );
}
