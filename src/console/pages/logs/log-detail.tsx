import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Center,
  Drawer,
  Group,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  Tooltip,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { lazy, type ReactNode, Suspense, useState } from "react";
import { CopyButton } from "../../components/copy-button";
import { ErrorAlert } from "../../components/error-alert";
import { formatCost, formatMs, formatNumber, formatTime } from "../../lib/format";
import { errorMessageOf, type RouterOutputs, useTRPC } from "../../lib/trpc";
import { RequestView, ResponseView } from "./conversation";
import { SOURCE_LABELS, StatusBadge } from "./logs-table";
import type { LogsSearch } from "./search";

const RawJson = lazy(() => import("./json-view"));
type LogDetailData = RouterOutputs["logs"]["get"];

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text
        size="sm"
        fw={500}
        style={{ fontVariantNumeric: "tabular-nums", wordBreak: "break-all" }}
        data-testid={`fact-${label.toLowerCase().replace(/\s+/g, "-")}`}
      >
        {children}
      </Text>
    </Stack>
  );
}

/** Raw JSON (request and response), lazily loaded, with a copy button. */
function RawView({ request, response, label }: { request: unknown; response: unknown; label: string }) {
  const [which, setWhich] = useState<"request" | "response">("request");
  const data = which === "request" ? request : response;
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <SegmentedControl
          size="xs"
          value={which}
          onChange={(v) => setWhich(v as "request" | "response")}
          data={[
            { value: "request", label: "Request" },
            { value: "response", label: "Response" },
          ]}
          aria-label={`${label}: request or response`}
        />
        <CopyButton value={JSON.stringify(data, null, 2) ?? "null"} label={`Copy ${which} JSON`} />
      </Group>
      <Suspense fallback={<Loader size="sm" aria-label="Loading the JSON viewer" />}>
        <RawJson data={data} label={`${label} ${which} JSON`} />
      </Suspense>
    </Stack>
  );
}

/** The log's tags: add, edit (a new value for a key) and remove, one log at a time. */
function TagsEditor({ log }: { log: LogDetailData }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const [newKey, setNewKey] = useState("");
  const [newValue, setNewValue] = useState("");
  const setTags = useMutation(
    trpc.logs.setTags.mutationOptions({
      onSuccess: async () => {
        setEditing(null);
        await queryClient.invalidateQueries({ queryKey: trpc.logs.pathKey() });
      },
      onError: (err) => notifications.show({ color: "red", title: "Could not change the tags", message: errorMessageOf(err) }),
    }),
  );
  const filter = { ids: [log.id] };
  const entries = Object.entries(log.metadata).sort(([a], [b]) => a.localeCompare(b));
  return (
    <Stack gap="xs" data-testid="tags-editor">
      {entries.length ? (
        <Table withRowBorders verticalSpacing={4} fz="sm" aria-label="Tags">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="35%">Key</Table.Th>
              <Table.Th>Value</Table.Th>
              <Table.Th w={150}>
                <span className="sr-only">Actions</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map(([key, value]) => (
              <Table.Tr key={key} data-tag-key={key}>
                <Table.Td ff="monospace">{key}</Table.Td>
                <Table.Td ff="monospace">
                  {editing === key ? (
                    <TextInput
                      size="xs"
                      aria-label={`New value of ${key}`}
                      value={draft}
                      onChange={(e) => setDraft(e.currentTarget.value)}
                      onKeyDown={(e) => {
                        if (e.key === "Enter") setTags.mutate({ filter, set: { [key]: draft } });
                        if (e.key === "Escape") setEditing(null);
                      }}
                      data-autofocus
                    />
                  ) : (
                    value
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} justify="flex-end" wrap="nowrap">
                    {editing === key ? (
                      <>
                        <Button size="compact-xs" onClick={() => setTags.mutate({ filter, set: { [key]: draft } })} loading={setTags.isPending}>
                          Save
                        </Button>
                        <Button size="compact-xs" variant="subtle" color="gray" onClick={() => setEditing(null)}>
                          Cancel
                        </Button>
                      </>
                    ) : (
                      <>
                        <Button
                          size="compact-xs"
                          variant="subtle"
                          aria-label={`Edit tag ${key}`}
                          onClick={() => {
                            setEditing(key);
                            setDraft(value);
                          }}
                        >
                          Edit
                        </Button>
                        <Button
                          size="compact-xs"
                          variant="subtle"
                          color="red"
                          aria-label={`Remove tag ${key}`}
                          onClick={() => setTags.mutate({ filter, remove: [key] })}
                          disabled={setTags.isPending}
                        >
                          Remove
                        </Button>
                      </>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : (
        <Text size="sm" c="dimmed">
          No tags.
        </Text>
      )}
      <Group
        gap="xs"
        align="flex-end"
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!newKey.trim()) return;
          setTags.mutate(
            { filter, set: { [newKey.trim()]: newValue } },
            {
              onSuccess: () => {
                setNewKey("");
                setNewValue("");
              },
            },
          );
        }}
      >
        <TextInput size="xs" label="New tag key" value={newKey} onChange={(e) => setNewKey(e.currentTarget.value)} w={160} />
        <TextInput size="xs" label="New tag value" value={newValue} onChange={(e) => setNewValue(e.currentTarget.value)} w={200} />
        <Button size="xs" type="submit" variant="default" disabled={!newKey.trim()} loading={setTags.isPending && !editing}>
          Add tag
        </Button>
      </Group>
    </Stack>
  );
}

function CriteriaResults({ results }: { results: NonNullable<LogDetailData["criteriaResults"]> }) {
  return (
    <Table fz="sm" verticalSpacing={4} aria-label="Criteria results">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Choice</Table.Th>
          <Table.Th>Criterion</Table.Th>
          <Table.Th>Result</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {results.flatMap((choice) =>
          Object.entries(choice.results).map(([criterion, r]) => {
            const o = (typeof r === "object" && r !== null ? r : {}) as Record<string, unknown>;
            const status = typeof o.status === "string" ? o.status : typeof r === "string" ? r : null;
            return (
              <Table.Tr key={`${choice.index}-${criterion}`}>
                <Table.Td>{choice.index}</Table.Td>
                <Table.Td ff="monospace">{criterion}</Table.Td>
                <Table.Td>
                  {status ? (
                    <Badge color={status === "PASS" ? "teal" : status === "FAIL" ? "red" : "gray"} variant="light" mr="xs">
                      {status}
                    </Badge>
                  ) : null}
                  {typeof o.score === "number" ? `score ${o.score} ` : ""}
                  {typeof o.explanation === "string" ? (
                    <Text span size="xs" c="dimmed">
                      {o.explanation}
                    </Text>
                  ) : status ? null : (
                    <Text span size="xs" ff="monospace">
                      {JSON.stringify(r)}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          }),
        )}
      </Table.Tbody>
    </Table>
  );
}

function errorOf(log: LogDetailData): string | null {
  if (log.errorMessage) return log.errorMessage;
  const resp = log.respPayload as { error?: { message?: unknown } } | null;
  if (resp && typeof resp === "object" && resp.error && typeof resp.error.message === "string") return resp.error.message;
  return null;
}

function DetailBody({ log }: { log: LogDetailData }) {
  const failed = (log.statusCode ?? 0) >= 400 || log.statusCode === 0 || log.statusCode == null;
  const error = errorOf(log);
  const hasOriginal = log.reqPayloadOriginal != null || log.respPayloadOriginal != null;
  return (
    <Stack gap="md">
      <Group gap="xs">
        <StatusBadge code={log.statusCode} />
        <Title order={4} ff="monospace">
          {log.model ?? "(no model)"}
        </Title>
        <Badge variant="default" tt="none">
          {SOURCE_LABELS[log.source] ?? log.source}
        </Badge>
        {log.cacheHit ? (
          <Badge color="cyan" variant="light" tt="none">
            cache hit
          </Badge>
        ) : null}
      </Group>
      {failed && (error || (log.statusCode ?? 0) >= 400) ? (
        <Alert color="red" title={log.statusCode ? `Failed with status ${log.statusCode}` : "Failed without a response"} role="alert">
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
            {error ?? "No error message was logged."}
          </Text>
        </Alert>
      ) : null}
      {log.warning ? (
        <Alert color="yellow" title="Not everything about this call was kept" data-testid="log-warning">
          <Text size="sm">{log.warning}</Text>
        </Alert>
      ) : null}
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm" verticalSpacing="xs">
        <Fact label="Requested">{formatTime(log.requestedAt)}</Fact>
        <Fact label="Received">{formatTime(log.receivedAt)}</Fact>
        <Fact label="Duration">{formatMs(log.durationMs)}</Fact>
        <Fact label="Logged">{formatTime(log.createdAt)}</Fact>
        <Fact label="Tokens in">{formatNumber(log.inputTokens)}</Fact>
        <Fact label="Tokens out">{formatNumber(log.outputTokens)}</Fact>
        <Fact label="Cost">{formatCost(log.costUsd)}</Fact>
        <Fact label="Cache">{log.cacheHit ? "hit" : "miss"}</Fact>
        <Fact label="Provider">{log.provider ?? "–"}</Fact>
        <Fact label="Completion id">{log.completionId ?? "–"}</Fact>
        <Fact label="Log id">
          <Group gap={2} wrap="nowrap" component="span">
            <span>{log.id}</span>
            <CopyButton value={log.id} label="Copy log id" />
          </Group>
        </Fact>
      </SimpleGrid>

      <Tabs defaultValue="conversation" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="conversation">Conversation</Tabs.Tab>
          <Tabs.Tab value="raw">Raw JSON</Tabs.Tab>
          {hasOriginal ? <Tabs.Tab value="original">Original payloads</Tabs.Tab> : null}
        </Tabs.List>
        <Tabs.Panel value="conversation" pt="sm">
          <Stack gap="md">
            <Stack gap={6}>
              <Title order={5}>Request</Title>
              <RequestView payload={log.reqPayload} />
            </Stack>
            <Stack gap={6}>
              <Title order={5}>Response</Title>
              <ResponseView payload={log.respPayload} />
            </Stack>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="raw" pt="sm">
          <RawView request={log.reqPayload} response={log.respPayload} label="Raw" />
        </Tabs.Panel>
        {hasOriginal ? (
          <Tabs.Panel value="original" pt="sm">
            <Text size="sm" c="dimmed" mb="xs">
              What the client reported (Anthropic Messages format), before Hone converted it to the chat-completion form shown elsewhere.
            </Text>
            <RawView request={log.reqPayloadOriginal} response={log.respPayloadOriginal} label="Original" />
          </Tabs.Panel>
        ) : null}
      </Tabs>

      <Stack gap={6}>
        <Title order={5}>Tags</Title>
        <TagsEditor log={log} />
      </Stack>

      {log.criteriaResults?.length ? (
        <Stack gap={6}>
          <Title order={5}>Criteria results</Title>
          <CriteriaResults results={log.criteriaResults} />
        </Stack>
      ) : null}

      <Stack gap={6}>
        <Title order={5}>Dataset entries</Title>
        {log.datasetEntries.length ? (
          <Stack gap={2} data-testid="dataset-entries">
            {log.datasetEntries.map((e) => (
              <Text size="sm" key={e.entryId}>
                <Anchor component={Link} to="/datasets">
                  {e.datasetName}
                </Anchor>{" "}
                <Text span size="xs" c="dimmed" ff="monospace">
                  {e.entryId}
                </Text>
              </Text>
            ))}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            This call has not been added to a dataset.
          </Text>
        )}
      </Stack>
    </Stack>
  );
}

/** One log in a drawer over the list, at /logs/$logId (the list's filters stay in the URL). */
export function LogDetail() {
  const trpc = useTRPC();
  const { logId } = useParams({ from: "/logs/$logId" });
  const navigate = useNavigate();
  const log = useQuery(trpc.logs.get.queryOptions({ id: logId }));
  const close = () => void navigate({ to: "/logs", search: (s) => s as LogsSearch });
  return (
    <Drawer
      opened
      onClose={close}
      position="right"
      size="min(980px, 92vw)"
      title={
        <Group gap="xs">
          <Text fw={700}>Log</Text>
          <Text ff="monospace" size="sm" c="dimmed">
            {logId}
          </Text>
        </Group>
      }
      closeButtonProps={{ "aria-label": "Close log" }}
      aria-label="Log detail"
    >
      {log.isPending ? (
        <Center p="xl">
          <Loader aria-label="Loading the log" />
        </Center>
      ) : log.error ? (
        <ErrorAlert error={log.error} title="Could not load the log" />
      ) : (
        <DetailBody log={log.data} />
      )}
      <Group mt="lg">
        <Tooltip label="Back to the list (Esc)">
          <ActionIcon variant="default" onClick={close} aria-label="Back to the list" size="lg">
            ←
          </ActionIcon>
        </Tooltip>
      </Group>
    </Drawer>
  );
}
