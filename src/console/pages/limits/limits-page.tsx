import { Button, Code, Group, Paper, Progress, Stack, Table, Text, Title } from "@mantine/core";
import { RowActions, RowButton } from "../../components/row-actions";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ACTIONS, DataTable } from "../../components/data-table";
import { PageHeader } from "../../components/page-header";
import { formatNumber } from "../../lib/format";
import { type ApiKey, useApiKeys } from "../settings/queries";
import { LimitModal } from "./limit-modal";
import { type Limit, type LimitSpend, useDeleteLimit, useLimitSpend, useLimits } from "./queries";
import { WebhookSection } from "./webhook-section";

const METRICS = [
  { metric: "requests", cap: (l: Limit) => l.requestsPerMinute, label: "Requests / min", money: false },
  { metric: "tokens", cap: (l: Limit) => l.tokensPerMinute, label: "Tokens / min", money: false },
  { metric: "usd_day", cap: (l: Limit) => l.costPerDayUsd, label: "Today", money: true },
  { metric: "usd_month", cap: (l: Limit) => l.costPerMonthUsd, label: "This month", money: true },
] as const;

const money = (n: number) => (n === 0 ? "$0" : n < 0.01 ? `$${n.toPrecision(2)}` : `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`);
const amount = (n: number, isMoney: boolean) => (isMoney ? money(n) : formatNumber(Math.round(n)));
const colorOf = (pct: number) => (pct >= 100 ? "red" : pct >= 80 ? "orange" : pct >= 50 ? "yellow" : "teal");

export function subjectOf(l: Limit, keys: ApiKey[]): string {
  if (l.scope === "project") return "The project";
  if (l.scope === "key") {
    const k = keys.find((x) => x.id === l.keyId);
    return `Key ${k ? (k.name ?? k.prefix) : l.keyId}`;
  }
  return l.tagValue == null ? `Each ${l.tagKey}` : `${l.tagKey} = ${l.tagValue}`;
}

/** One capped quantity as a bar: spent against the cap in the current window. */
function SpendBar({ label, spent, cap, isMoney }: { label: string; spent: number; cap: number; isMoney: boolean }) {
  const pct = cap > 0 ? (spent / cap) * 100 : 0;
  return (
    <Stack gap={2} miw={150} data-testid="spend-bar" data-label={label} data-pct={Math.round(pct)}>
      <Group justify="space-between" gap={4} wrap="nowrap">
        <Text size="xs" c="dimmed">
          {label}
        </Text>
        <Text size="xs" fw={500}>
          {amount(spent, isMoney)} / {amount(cap, isMoney)}
        </Text>
      </Group>
      <Progress value={Math.min(100, pct)} color={colorOf(pct)} size="md" aria-label={`${label}: ${Math.round(pct)}% of the limit`} />
    </Stack>
  );
}

function Bars({ limit, spend, value }: { limit: Limit; spend: LimitSpend[]; value: string | null }) {
  return (
    <Group gap="lg" wrap="nowrap" align="flex-start">
      {METRICS.map((m) => {
        const cap = m.cap(limit);
        if (cap == null) return null;
        const s = spend.find((x) => x.limitId === limit.id && x.metric === m.metric && x.value === value);
        return <SpendBar key={m.metric} label={m.label} spent={s?.spent ?? 0} cap={cap} isMoney={m.money} />;
      })}
    </Group>
  );
}

export function LimitsPage() {
  const limits = useLimits();
  const spend = useLimitSpend();
  const keys = useApiKeys();
  const [editing, setEditing] = useState<Limit | "new" | null>(null);
  const [deleting, setDeleting] = useState<Limit | null>(null);
  const remove = useDeleteLimit(() => setDeleting(null));
  const rows = spend.data ?? [];
  const keyList = keys.data ?? [];
  return (
    <>
      <PageHeader
        mutates="admin"
        title="Budgets and limits"
        description="What the project, each key and each tag value may spend, and what they spent in the current windows."
        actions={<Button onClick={() => setEditing("new")}>Add limit</Button>}
      />
      <Stack gap="xl">
        <Stack gap="xs">
          <DataTable
            label="Limits"
            testId="limits-table"
            verticalSpacing="sm"
            minWidth={900}
            columns={["Applies to", "Spent in the current window", ACTIONS]}
            query={limits}
            error={spend.error}
            empty="No limits: every key may call as much as the providers allow. Add one to cap requests, tokens or spend."
            row={(l) => {
              const subject = subjectOf(l, keyList);
              const perValue = l.scope === "tag" && l.tagValue == null;
              const values = perValue ? [...new Set(rows.filter((r) => r.limitId === l.id && r.value != null).map((r) => r.value!))] : [];
              return [
                <Table.Tr key={l.id} data-limit-id={l.id} data-subject={subject}>
                  <Table.Td>
                    <Stack gap={2}>
                      <Text size="sm" fw={500}>
                        {subject}
                      </Text>
                      {perValue ? (
                        <Text size="xs" c="dimmed">
                          each value has these limits on its own
                        </Text>
                      ) : null}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    {perValue ? (
                      <Text size="xs" c="dimmed">
                        {values.length
                          ? `${values.length} value${values.length === 1 ? "" : "s"} spent in this window, most first:`
                          : "No value spent in this window yet"}
                      </Text>
                    ) : (
                      <Bars limit={l} spend={rows} value={null} />
                    )}
                  </Table.Td>
                  <Table.Td>
                    <RowActions deleteLabel={`Delete limit of ${subject}`} deleteMay="limits.delete" onDelete={() => setDeleting(l)}>
                      <RowButton may="limits.set" label={`Change limit of ${subject}`} onClick={() => setEditing(l)}>
                        Change
                      </RowButton>
                    </RowActions>
                  </Table.Td>
                </Table.Tr>,
                ...values.map((v) => (
                  <Table.Tr key={`${l.id}:${v}`} data-limit-id={l.id} data-tag-value={v}>
                    <Table.Td pl="xl">
                      <Code>
                        {l.tagKey} = {v}
                      </Code>
                    </Table.Td>
                    <Table.Td>
                      <Bars limit={l} spend={rows} value={v} />
                    </Table.Td>
                    <Table.Td />
                  </Table.Tr>
                )),
              ];
            }}
          />
          <Text size="xs" c="dimmed">
            Over a limit, calls get a 429 (<Code>rate_limit_exceeded</Code> or <Code>budget_exceeded</Code>) with <Code>Retry-After</Code>; every answer carries
            the <Code>x-ratelimit-*</Code> headers of its tightest limit.
          </Text>
        </Stack>
        <Paper withBorder p="md">
          <Title order={4} mb="xs">
            Alerts
          </Title>
          <WebhookSection />
        </Paper>
      </Stack>
      {editing ? <LimitModal limit={editing === "new" ? null : editing} keys={keyList} onClose={() => setEditing(null)} /> : null}
      <ConfirmDelete
        target={deleting}
        title={`Delete the limit of ${deleting ? subjectOf(deleting, keyList) : ""}?`}
        confirmLabel="Delete limit"
        onClose={() => setDeleting(null)}
        onConfirm={(t) => remove.mutate({ id: t.id })}
        mutation={remove}
      >
        <Text size="sm">Calls are no longer counted against it. What was spent stays in the logs and usage.</Text>
      </ConfirmDelete>
    </>
  );
}
