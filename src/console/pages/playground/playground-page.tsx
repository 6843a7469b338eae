import {
  ActionIcon,
  Alert,
  Anchor,
  Autocomplete,
  Badge,
  Button,
  Group,
  JsonInput,
  MultiSelect,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useRef, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatCost, formatMs, formatNumber } from "../../lib/format";
import { errorMessageOf, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { Message } from "../logs/conversation";

type Role = "system" | "user" | "assistant" | "tool";
type Draft = { role: Role; content: string; toolCallId: string };
type Done = Extract<RouterOutputs["playground"]["run"] extends AsyncIterable<infer E> ? E : never, { type: "done" }>;
type Column = { model: string; texts: string[]; done: Done | null; error: string | null; running: boolean };

const MAX_MODELS = 4;
const ROLES: Role[] = ["system", "user", "assistant", "tool"];

function toMessages(drafts: Draft[]) {
  return drafts.map((d) => (d.role === "tool" ? { role: d.role, content: d.content, tool_call_id: d.toolCallId } : { role: d.role, content: d.content }));
}

/** Cost and the log of a finished run, once the log is written (it is, within a moment). */
function RunFooter({ done }: { done: Done }) {
  const trpc = useTRPC();
  const log = useQuery({
    ...trpc.logs.list.queryOptions({ filter: { completionId: done.completionId ?? "" }, first: 1 }),
    enabled: Boolean(done.completionId),
    refetchInterval: (q) => ((q.state.data?.logs.length ?? 0) > 0 || q.state.dataUpdateCount > 20 ? false : 500),
  });
  const row = log.data?.logs[0];
  return (
    <Group gap="md" data-testid="run-stats">
      <Text size="xs">latency {formatMs(done.latencyMs)}</Text>
      <Text size="xs">
        tokens {formatNumber(done.usage?.promptTokens)} in / {formatNumber(done.usage?.completionTokens)} out
      </Text>
      <Text size="xs">cost {formatCost(row?.costUsd)}</Text>
      {row ? (
        <Anchor size="xs" renderRoot={(props) => <Link {...props} to="/logs/$logId" params={{ logId: row.id }} />}>
          open its log
        </Anchor>
      ) : null}
    </Group>
  );
}

/** `criteria_results` of a choice: per criterion id, a score (1 PASS, 0 FAIL) and the judge's explanation. */
function CriteriaResults({ value, names }: { value: unknown; names: Map<string, string> }) {
  if (!value || typeof value !== "object") return null;
  const results = Object.entries(value as Record<string, { status?: string; score?: number | null; explanation?: string | null; error?: string }>);
  return (
    <Stack gap={2} data-testid="criteria-results">
      {results.map(([id, r]) => {
        const verdict = r.status !== "success" ? "error" : r.score === 1 ? "PASS" : "FAIL";
        return (
          <Stack key={id} gap={0}>
            <Badge color={verdict === "PASS" ? "teal" : verdict === "FAIL" ? "red" : "gray"} variant="light" tt="none">
              {names.get(id.split("@")[0]!) ?? id}: {verdict}
            </Badge>
            <Text size="xs" c="dimmed" pl={4}>
              {r.explanation ?? r.error ?? ""}
            </Text>
          </Stack>
        );
      })}
    </Stack>
  );
}

export function PlaygroundPage() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const facets = useQuery(trpc.logs.facets.queryOptions());
  const models = useQuery(trpc.models.list.queryOptions());
  const criteria = useQuery(trpc.criteria.list.queryOptions());
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const criterionNames = new Map((criteria.data ?? []).map((c) => [c.id, c.name]));
  const suggestions = [
    ...new Set([
      ...(models.data ?? []).filter((m) => m.status === "DEPLOYED").map((m) => `hone:${m.slug}`),
      ...(facets.data?.models ?? []).map((m) => m.value),
      "gpt-4o-mini",
      "gpt-4o",
      "anthropic:claude-3-5-haiku-latest",
    ]),
  ];
  const [chosen, setChosen] = useState<string[]>(["gpt-4o-mini"]);
  const [drafts, setDrafts] = useState<Draft[]>([
    { role: "system", content: "You are a helpful assistant.", toolCallId: "" },
    { role: "user", content: "", toolCallId: "" },
  ]);
  const [temperature, setTemperature] = useState<number | string>(1);
  const [maxTokens, setMaxTokens] = useState<number | string>("");
  const [n, setN] = useState<number | string>(1);
  const [tools, setTools] = useState("");
  const [criteriaIds, setCriteriaIds] = useState<string[]>([]);
  const [columns, setColumns] = useState<Column[]>([]);
  const [datasetId, setDatasetId] = useState<string | null>(null);
  const aborts = useRef<AbortController[]>([]);
  const save = useMutation(
    trpc.playground.saveEntry.mutationOptions({
      onSuccess: () => notifications.show({ message: "Saved as a dataset entry" }),
      onError: (err) => notifications.show({ color: "red", title: "Not saved", message: errorMessageOf(err) }),
    }),
  );
  let toolsError: string | null = null;
  let parsedTools: unknown[] | null = null;
  if (tools.trim()) {
    try {
      const v = JSON.parse(tools);
      if (Array.isArray(v)) parsedTools = v;
      else toolsError = "tools must be a JSON array of tool definitions";
    } catch (err) {
      toolsError = `not valid JSON: ${(err as Error).message}`;
    }
  }
  const running = columns.some((c) => c.running);
  const update = (i: number, f: (c: Column) => Column) => setColumns((cols) => cols.map((c, j) => (j === i ? f(c) : c)));
  const run = () => {
    const targets = chosen.map((m) => m.trim()).filter(Boolean);
    const messages = toMessages(drafts);
    setColumns(targets.map((model) => ({ model, texts: [], done: null, error: null, running: true })));
    aborts.current = targets.map(() => new AbortController());
    targets.forEach(async (model, i) => {
      try {
        const events = await client.playground.run.mutate(
          {
            model,
            messages,
            temperature: typeof temperature === "number" ? temperature : null,
            maxTokens: typeof maxTokens === "number" ? maxTokens : null,
            n: typeof n === "number" ? n : null,
            tools: parsedTools,
            criteria: criteriaIds.length ? criteriaIds : null,
          },
          { signal: aborts.current[i]!.signal },
        );
        for await (const e of events) {
          if (e.type === "delta")
            update(i, (c) => {
              const texts = [...c.texts];
              texts[e.index] = (texts[e.index] ?? "") + e.content;
              return { ...c, texts };
            });
          else if (e.type === "done") update(i, (c) => ({ ...c, done: e }));
          else update(i, (c) => ({ ...c, error: e.message }));
        }
      } catch (err) {
        const aborted = aborts.current[i]?.signal.aborted;
        update(i, (c) => ({ ...c, error: aborted ? "Stopped" : errorMessageOf(err) }));
      } finally {
        update(i, (c) => ({ ...c, running: false }));
      }
    });
  };
  const setDraft = (i: number, patch: Partial<Draft>) => setDrafts((ds) => ds.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  return (
    <>
      <PageHeader title="Playground" description="Try a conversation on up to four models side by side. Calls are logged, tagged hone.source=playground." />
      <SimpleGrid cols={{ base: 1, xl: 2 }} spacing="md">
        <Stack gap="sm">
          <Paper withBorder p="sm" radius="md">
            <Stack gap="xs">
              <Text fw={600}>Models</Text>
              {chosen.map((m, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the column's position is its identity
                <Group key={i} gap="xs" wrap="nowrap">
                  <Autocomplete
                    label={`Model ${i + 1}`}
                    data={suggestions}
                    value={m}
                    onChange={(v) => setChosen((c) => c.map((x, j) => (j === i ? v : x)))}
                    style={{ flex: 1 }}
                    placeholder="gpt-4o-mini, anthropic:…, hone:<slug>"
                  />
                  {chosen.length > 1 ? (
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      mt={24}
                      aria-label={`Remove model ${i + 1}`}
                      onClick={() => setChosen((c) => c.filter((_, j) => j !== i))}
                    >
                      ✕
                    </ActionIcon>
                  ) : null}
                </Group>
              ))}
              {chosen.length < MAX_MODELS ? (
                <Button size="xs" variant="default" onClick={() => setChosen((c) => [...c, ""])} w="fit-content">
                  Add a model
                </Button>
              ) : null}
            </Stack>
          </Paper>
          <Paper withBorder p="sm" radius="md">
            <Stack gap="xs">
              <Text fw={600}>Conversation</Text>
              {drafts.map((d, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: messages are edited in place by position
                <Group key={i} align="flex-start" gap="xs" wrap="nowrap">
                  <Select
                    aria-label={`Role of message ${i + 1}`}
                    data={ROLES}
                    value={d.role}
                    onChange={(v) => v && setDraft(i, { role: v as Role })}
                    w={110}
                    allowDeselect={false}
                  />
                  <Stack gap={4} style={{ flex: 1 }}>
                    <Textarea
                      aria-label={`Message ${i + 1}`}
                      value={d.content}
                      onChange={(e) => setDraft(i, { content: e.currentTarget.value })}
                      autosize
                      minRows={1}
                      maxRows={10}
                    />
                    {d.role === "tool" ? (
                      <Autocomplete
                        size="xs"
                        aria-label={`Tool call id of message ${i + 1}`}
                        placeholder="tool_call_id"
                        value={d.toolCallId}
                        onChange={(v) => setDraft(i, { toolCallId: v })}
                        data={[]}
                      />
                    ) : null}
                  </Stack>
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    aria-label={`Remove message ${i + 1}`}
                    onClick={() => setDrafts((ds) => ds.filter((_, j) => j !== i))}
                  >
                    ✕
                  </ActionIcon>
                </Group>
              ))}
              <Button
                size="xs"
                variant="default"
                w="fit-content"
                onClick={() => setDrafts((ds) => [...ds, { role: ds.at(-1)?.role === "user" ? "assistant" : "user", content: "", toolCallId: "" }])}
              >
                Add a message
              </Button>
            </Stack>
          </Paper>
          <Paper withBorder p="sm" radius="md">
            <Group grow align="flex-start">
              <NumberInput label="Temperature" value={temperature} onChange={setTemperature} min={0} max={2} step={0.1} decimalScale={2} />
              <NumberInput label="Max tokens" value={maxTokens} onChange={setMaxTokens} min={1} max={65536} placeholder="model default" />
              <NumberInput label="n" description="choices per model" value={n} onChange={setN} min={1} max={4} />
            </Group>
            <MultiSelect
              mt="xs"
              label="Criteria"
              description="Judge every choice and rank them best first (best of n); a judged run is not streamed"
              data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
              value={criteriaIds}
              onChange={setCriteriaIds}
              clearable
            />
            <JsonInput
              mt="xs"
              label="Tools"
              description="A JSON array of function tools (optional)"
              value={tools}
              onChange={setTools}
              autosize
              minRows={2}
              maxRows={12}
              error={toolsError}
            />
          </Paper>
          <Group>
            <Button onClick={run} loading={running} disabled={!!toolsError || !chosen.some((m) => m.trim())}>
              Run
            </Button>
            {running ? (
              <Button
                variant="default"
                onClick={() => {
                  for (const a of aborts.current) a.abort();
                }}
              >
                Stop
              </Button>
            ) : null}
          </Group>
        </Stack>
        <Stack gap="sm">
          {columns.length === 0 ? (
            <Paper withBorder p="xl" radius="md">
              <Text c="dimmed">Write a conversation, choose models, and press Run. Outputs stream in here, one column per model.</Text>
            </Paper>
          ) : null}
          <SimpleGrid cols={{ base: 1, md: Math.min(columns.length, 4) }}>
            {columns.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: one column per chosen model, by position
              <Paper key={i} withBorder p="sm" radius="md" data-testid={`column-${i}`}>
                <Group justify="space-between" mb="xs">
                  <Text fw={600} ff="monospace" size="sm">
                    {c.model}
                  </Text>
                  {c.running ? <Badge variant="light">running</Badge> : null}
                </Group>
                {c.error ? (
                  <Alert color="red" role="alert" mb="xs">
                    {c.error}
                  </Alert>
                ) : null}
                <Stack gap="xs">
                  {(
                    c.done?.choices ??
                    c.texts.map((t, index) => ({ index, message: { role: "assistant", content: t }, finishReason: null, criteriaResults: null }))
                  ).map((choice) => (
                    <Stack key={choice.index} gap={4} data-testid="choice">
                      <Message message={choice.message} scope={`pg-${i}-${choice.index}`} />
                      <CriteriaResults value={choice.criteriaResults} names={criterionNames} />
                      {c.done && choice.message ? (
                        <Button
                          size="xs"
                          variant="default"
                          w="fit-content"
                          disabled={!datasetId}
                          loading={save.isPending}
                          onClick={() => datasetId && save.mutate({ datasetId, messages: [...toMessages(drafts), choice.message], tools: parsedTools })}
                        >
                          Save as dataset entry
                        </Button>
                      ) : null}
                    </Stack>
                  ))}
                  {c.done ? <RunFooter done={c.done} /> : null}
                </Stack>
              </Paper>
            ))}
          </SimpleGrid>
          {columns.some((c) => c.done) ? (
            <Select
              label="Save outputs to dataset"
              data={(datasets.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
              value={datasetId}
              onChange={setDatasetId}
              placeholder="choose a dataset"
              w={320}
            />
          ) : null}
          <ErrorAlert error={datasets.error} />
        </Stack>
      </SimpleGrid>
    </>
  );
}
