import "@mantine/charts/styles.css";
import { Anchor, Autocomplete, Button, Code, Group, Loader, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { CopyTextButton } from "../settings/copy-text-button";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatCost, formatMs, formatNumber } from "../../lib/format";
import { useTRPC } from "../../lib/trpc";
import { curlSnippet, gatewayBaseUrl } from "../settings/snippets";
import { UsageCharts } from "./usage-charts";
import type { Figures } from "./usage-groups";
import { UsageTable } from "./usage-table";
import { RANGE_PRESETS, resolveRange, type UsageSearch, type UsageSplit } from "./usage-search";

const SPLIT_OPTIONS: { value: UsageSplit; label: string }[] = [
  { value: "none", label: "None" },
  { value: "model", label: "Model" },
  { value: "provider", label: "Provider" },
  { value: "source", label: "Source" },
  { value: "tag", label: "Tag" },
];

function Stat({ label, value, testId, exact, hint }: { label: string; value: string; testId: string; exact: number | null; hint?: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700} style={{ whiteSpace: "nowrap" }}>
        {label}
      </Text>
      <Text fz={24} fw={700} data-testid={testId} data-value={exact ?? ""} title={exact == null ? undefined : String(exact)}>
        {value}
      </Text>
      {hint ? (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      ) : null}
    </Paper>
  );
}

function Totals({ totals }: { totals: Figures }) {
  const rate = totals.requests ? totals.errors / totals.requests : null;
  return (
    <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} spacing="sm">
      <Stat label="Requests" testId="total-requests" value={formatNumber(totals.requests)} exact={totals.requests} />
      <Stat label="Input tokens" testId="total-input-tokens" value={formatNumber(totals.inputTokens)} exact={totals.inputTokens} />
      <Stat label="Output tokens" testId="total-output-tokens" value={formatNumber(totals.outputTokens)} exact={totals.outputTokens} />
      <Stat label="Cost" testId="total-cost" value={formatCost(totals.costUsd)} exact={totals.costUsd} />
      <Stat
        label="Error rate"
        testId="total-error-rate"
        value={rate == null ? "–" : `${(rate * 100).toFixed(1)}%`}
        exact={rate}
        hint={`${formatNumber(totals.errors)} errors`}
      />
      <Stat label="p50 latency" testId="total-p50" value={formatMs(totals.p50Ms)} exact={totals.p50Ms} />
      <Stat label="p95 latency" testId="total-p95" value={formatMs(totals.p95Ms)} exact={totals.p95Ms} />
    </SimpleGrid>
  );
}

function EmptyState() {
  const base = gatewayBaseUrl();
  const snippet = curlSnippet(base);
  return (
    <Paper withBorder p="lg" radius="md" data-testid="usage-empty">
      <Stack gap="sm">
        <Title order={3}>No calls in this range</Title>
        <Text c="dimmed" size="sm">
          Send a call through Hone (or report one) and it shows up here. Choose a longer range above, or start with this call; more snippets are in{" "}
          <Anchor renderRoot={(props) => <Link {...props} to="/settings" search={{ tab: "get-started" }} />}>Settings → Get started</Anchor>.
        </Text>
        <Group align="flex-start" wrap="nowrap" gap="xs">
          <Code block style={{ flex: 1, overflowX: "auto" }}>
            {snippet}
          </Code>
          <CopyTextButton value={snippet} label="Copy curl snippet" />
        </Group>
      </Stack>
    </Paper>
  );
}

/** The tag key to split by: suggested from the newest logs' tags, committed on pick, Enter or blur. */
function TagKeyPicker({ value, onCommit }: { value: string; onCommit: (key: string) => void }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.logs.tagKeys.queryOptions(undefined, { staleTime: 60_000 }));
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const commit = (v: string) => {
    const key = v.trim();
    if (key && key !== value) onCommit(key);
  };
  return (
    <Autocomplete
      label="Tag key"
      placeholder="e.g. prompt_id"
      w={200}
      data={(keys.data ?? []).map((k) => k.key)}
      value={text}
      onChange={setText}
      onOptionSubmit={commit}
      onBlur={() => commit(text)}
      onKeyDown={(e) => {
        if (e.key === "Enter") commit(text);
      }}
      rightSection={keys.isFetching ? <Loader size="xs" /> : null}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

export function UsagePage() {
  const trpc = useTRPC();
  const search = useSearch({ from: "/usage" }) as UsageSearch;
  const navigate = useNavigate({ from: "/usage" });
  const [now, setNow] = useState(() => Date.now());
  const r = resolveRange(search, now);
  const split = search.split ?? "none";
  const tagKey = split === "tag" ? (search.tag ?? "") : "";
  const set = (patch: Partial<UsageSearch>) => navigate({ search: (prev: UsageSearch) => ({ ...prev, ...patch }), replace: false });

  const input = {
    from: r.from.toISOString(),
    to: r.to.toISOString(),
    bucket: r.bucket,
    groupBy: split === "tag" && !tagKey ? ("none" as const) : split,
    ...(split === "tag" && tagKey ? { tagKey } : {}),
  };
  const usage = useQuery(trpc.logs.usage.queryOptions(input, { enabled: !r.problem, placeholderData: keepPreviousData }));
  const data = usage.data;

  return (
    <Stack gap="md">
      <PageHeader
        title="Usage"
        description="Requests, tokens, cost, errors and latency over time. Buckets are UTC hours or days; every figure is summed from the logs."
        actions={
          <Button variant="default" onClick={() => setNow(Date.now())} loading={usage.isFetching && !usage.isPending}>
            Refresh
          </Button>
        }
      />
      <Group align="flex-end" gap="md" wrap="wrap">
        <Stack gap={4}>
          <Text size="sm" fw={500} id="usage-range-label">
            Range
          </Text>
          <SegmentedControl
            aria-labelledby="usage-range-label"
            value={r.range}
            onChange={(v) => set({ range: v as UsageSearch["range"], bucket: undefined })}
            data={[...RANGE_PRESETS.map((p) => ({ value: p.value, label: p.label })), { value: "custom", label: "Custom" }]}
          />
        </Stack>
        {r.range === "custom" ? (
          <>
            <TextInput type="date" label="From (UTC)" value={r.customFrom} onChange={(e) => e.currentTarget.value && set({ from: e.currentTarget.value })} />
            <TextInput type="date" label="To (UTC)" value={r.customTo} onChange={(e) => e.currentTarget.value && set({ to: e.currentTarget.value })} />
          </>
        ) : null}
        <Stack gap={4}>
          <Text size="sm" fw={500} id="usage-bucket-label">
            Per
          </Text>
          <SegmentedControl
            aria-labelledby="usage-bucket-label"
            value={r.bucket}
            onChange={(v) => set({ bucket: v as "hour" | "day" })}
            data={[
              { value: "hour", label: "Hour", disabled: !r.hourAllowed },
              { value: "day", label: "Day" },
            ]}
          />
        </Stack>
        <Select
          label="Split by"
          w={140}
          data={SPLIT_OPTIONS}
          value={split}
          allowDeselect={false}
          onChange={(v) => v && set({ split: v as UsageSplit })}
          comboboxProps={{ withinPortal: true }}
        />
        {split === "tag" ? <TagKeyPicker value={tagKey} onCommit={(tag) => set({ tag })} /> : null}
      </Group>
      {!r.hourAllowed ? (
        <Text size="xs" c="dimmed">
          Hourly buckets are available for ranges of up to 31 days.
        </Text>
      ) : null}
      {split === "tag" && !tagKey ? (
        <Text size="sm" c="dimmed">
          Choose a tag key to split by; until then the calls are not split.
        </Text>
      ) : null}
      {r.problem ? <ErrorAlert error={new Error(r.problem)} title="Choose another range" /> : null}
      <ErrorAlert error={usage.error} title="Usage could not be loaded" />
      {usage.isPending && !r.problem ? <Loader aria-label="Loading usage" /> : null}
      {data ? (
        <Stack gap="md" style={{ opacity: usage.isPlaceholderData ? 0.6 : 1 }} aria-busy={usage.isFetching}>
          <Totals totals={data.totals} />
          {data.totals.requests === 0 ? (
            <EmptyState />
          ) : (
            <>
              <UsageCharts usage={data} split={input.groupBy} tagKey={tagKey} />
              <UsageTable usage={data} split={input.groupBy} tagKey={tagKey} />
            </>
          )}
        </Stack>
      ) : null}
    </Stack>
  );
}
