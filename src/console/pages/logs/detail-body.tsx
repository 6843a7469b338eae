import { Alert, Anchor, Badge, Group, SimpleGrid, Stack, Table, Tabs, Text, Title } from "@mantine/core";
import { When } from "../../components/when";
import { Hint } from "../../components/hint";
import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { CopyButton } from "../../components/copy-button";
import { formatCost, formatMs, formatNumber } from "../../lib/format";
import { COST_FLAGS, sourceLabel } from "./columns";
import { ClassCostTable } from "../../components/class-cost-table";
import { RequestView, ResponseView } from "./conversation";
import { ProtocolView } from "./protocol-view";
import { CriteriaResults } from "./criteria-results";
import type { LogDetailData } from "./queries";
import { API_LABELS } from "./search";
import { RawView } from "./raw-view";
import { REFUSAL_LABELS, StatusBadge } from "./status-badge";
import { TagsEditor } from "./tags-editor";

function Fact({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
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
      <Hint>{hint}</Hint>
    </Stack>
  );
}

/** A share of the tokens in or out, when the call had any. */
function TokenFact({ label, hint, tokens }: { label: string; hint: string; tokens: number | null | undefined }) {
  return tokens ? (
    <Fact label={label} hint={hint}>
      {formatNumber(tokens)}
    </Fact>
  ) : null;
}

function errorOf(log: LogDetailData): string | null {
  if (log.errorMessage) return log.errorMessage;
  const resp = log.respPayload as { error?: { message?: unknown } } | null;
  if (resp && typeof resp === "object" && resp.error && typeof resp.error.message === "string") return resp.error.message;
  return null;
}

const NEXT_LABELS: Record<string, string> = { answered: "answered", retried: "retried", "fell-back": "fell back", failed: "failed" };

/** Each try of a call with fallbacks or a route: target, status, latency, error and what came next. */
function Attempts({ attempts }: { attempts: NonNullable<LogDetailData["attempts"]> }) {
  return (
    <Stack gap={6}>
      <Title order={5}>Attempts</Title>
      <Table withTableBorder fz="sm" aria-label="Attempts" data-testid="attempts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>#</Table.Th>
            <Table.Th>Target</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th ta="right">Latency</Table.Th>
            <Table.Th>Then</Table.Th>
            <Table.Th>Error</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {attempts.map((a, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a log's attempts never change; their order is what they are
            <Table.Tr key={i}>
              <Table.Td>{i + 1}</Table.Td>
              <Table.Td ff="monospace" style={{ overflowWrap: "anywhere" }}>
                {a.target}
                {a.version ? (
                  <Badge ml={6} size="xs" variant="light" tt="none">
                    {a.version}
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td>
                <StatusBadge code={a.statusCode} />
              </Table.Td>
              <Table.Td ta="right">{formatMs(a.latencyMs)}</Table.Td>
              <Table.Td>{NEXT_LABELS[a.next] ?? a.next}</Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>{a.error ?? ""}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/** A log's figures, conversation, raw JSON, tags, criteria results and dataset entries. */
/** Whether the cost by token class is shown (it names the price the cost was reckoned with). */
const hasClassCosts = (classes: Record<string, number> | null | undefined) => Object.values(classes ?? {}).some((v) => v > 0);

const MASKING_WORDS: Record<string, string> = {
  mask_stored: "masked in what Hone stores (the provider got the call as sent)",
  mask_upstream: "masked before the provider too (the client got its answer with the values back)",
  block: "under a rule that blocks calls holding sensitive data",
};

/** The masking rule the call ran under and what it replaced (kinds and counts, never values). */
function MaskedNote({ mode, masked }: { mode: string; masked: Record<string, number> | null }) {
  const kinds = Object.entries(masked ?? {});
  return (
    <Group gap="xs" data-testid="log-masking">
      <Text size="sm" c="dimmed">
        Sensitive data {MASKING_WORDS[mode] ?? mode}:
      </Text>
      {kinds.length ? (
        kinds.map(([kind, n]) => (
          <Badge key={kind} variant="light" color="violet" tt="none">
            {kind} × {n}
          </Badge>
        ))
      ) : (
        <Text size="sm">none found</Text>
      )}
    </Group>
  );
}

export function DetailBody({ log }: { log: LogDetailData }) {
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
        <Badge variant="default" tt="none" data-testid="detail-source">
          {sourceLabel(log)}
        </Badge>
        {log.api && log.api !== "chat" ? (
          <Badge variant="light" tt="none" data-testid="detail-api">
            {API_LABELS[log.api] ?? log.api}
          </Badge>
        ) : null}
        {log.cacheHit ? (
          <Badge variant="default" tt="none">
            cache hit
          </Badge>
        ) : null}
      </Group>
      {log.masking ? <MaskedNote mode={log.masking} masked={log.masked} /> : null}
      {log.traceId ? (
        <Group gap="xs" data-testid="log-trace">
          <Text size="sm" c="dimmed">
            Part of a trace:
          </Text>
          <Anchor size="sm" ff="monospace" renderRoot={(props) => <Link {...props} to="/traces/$traceId" params={{ traceId: log.traceId ?? "" }} />}>
            {log.traceId}
          </Anchor>
          {log.sessionId ? (
            <Text size="sm" c="dimmed">
              session {log.sessionId}
            </Text>
          ) : null}
        </Group>
      ) : null}
      {log.refusal ? (
        <Alert color="orange" title={`Refused by Hone: ${REFUSAL_LABELS[log.refusal] ?? log.refusal}`} role="alert" data-testid="log-refusal">
          <Text size="sm">
            Nothing was sent upstream and nothing was charged.
            {log.refusals && log.refusals > 1
              ? ` This row counts ${log.refusals} calls of one key in one minute, past those logged one by one (HONE_REFUSALS_LOGGED_PER_MINUTE).`
              : ""}
          </Text>
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
            {error ?? log.errorMessage}
          </Text>
        </Alert>
      ) : failed && (error || (log.statusCode ?? 0) >= 400) ? (
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
        <Fact label="Requested" hint="when the call was made">
          <When value={log.requestedAt} />
        </Fact>
        <Fact label="Received" hint="when its answer came">
          <When value={log.receivedAt} />
        </Fact>
        <Fact label="Duration">{formatMs(log.durationMs)}</Fact>
        <Fact label="Logged" hint="when Hone stored it">
          <When value={log.createdAt} />
        </Fact>
        <Fact label="Tokens in">{formatNumber(log.inputTokens)}</Fact>
        <TokenFact label="Cached input" hint="of tokens in, read from the cache" tokens={log.cachedInputTokens} />
        <TokenFact label="Cache writes" hint="of tokens in, written to the cache" tokens={log.cacheWriteTokens} />
        <Fact label="Tokens out">{formatNumber(log.outputTokens)}</Fact>
        <TokenFact label="Reasoning" hint="of tokens out" tokens={log.reasoningTokens} />
        {/* The price it was reckoned with is said once: under the cost by class when there is one, else here. */}
        <Fact label="Cost" hint={log.costFlag ? COST_FLAGS[log.costFlag]?.why : hasClassCosts(log.classes) ? undefined : (log.priceVersion ?? undefined)}>
          {log.costFlag ? (
            <Badge color="orange" variant="light" tt="none" data-testid="cost-flag">
              {COST_FLAGS[log.costFlag]?.label ?? log.costFlag}
            </Badge>
          ) : (
            formatCost(log.costUsd)
          )}
        </Fact>
        <Fact label="Cache">{log.cacheHit ? "hit" : "miss"}</Fact>
        <Fact label="Provider">{log.provider ?? "–"}</Fact>
        {log.route ? (
          <Fact label="Route" hint={log.routeVersion ? `version ${log.routeVersion} answered` : undefined}>
            <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/routes/$slug" params={{ slug: log.route! }} />}>
              hone:{log.route}
            </Anchor>
          </Fact>
        ) : null}
        <Fact label="Completion id">{log.completionId ?? "–"}</Fact>
        <Fact label="Log id">
          <Group gap={2} wrap="nowrap" component="span">
            <span>{log.id}</span>
            <CopyButton value={log.id} label="Copy log id" />
          </Group>
        </Fact>
      </SimpleGrid>

      <ClassCostTable classes={log.classes} total={log.costUsd} caption={log.priceVersion ? `Priced with ${log.priceVersion}` : "Cost by token class"} />

      {log.attempts?.length ? <Attempts attempts={log.attempts} /> : null}

      <Tabs defaultValue="conversation" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="conversation">Conversation</Tabs.Tab>
          <Tabs.Tab value="raw">Raw JSON</Tabs.Tab>
          {hasOriginal ? (
            <Tabs.Tab value="original">{log.api === "messages" || log.api === "responses" ? "As the client saw it" : "Original payloads"}</Tabs.Tab>
          ) : null}
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
              {log.api === "messages"
                ? "The request and answer in Anthropic's Messages format, as the client sent and received them; the other tabs show their chat-completion form."
                : log.api === "responses"
                  ? "The request and answer in OpenAI's Responses format, as the client sent and received them; the other tabs show their chat-completion form."
                  : "What the client reported (Anthropic Messages format), before Hone converted it to the chat-completion form shown elsewhere."}
            </Text>
            <ProtocolView api={log.api} request={log.reqPayloadOriginal} response={log.respPayloadOriginal} />
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
                <Anchor renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: e.datasetId }} />}>{e.datasetName}</Anchor>{" "}
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
