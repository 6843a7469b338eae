import "@mantine/charts/styles.css";
import { Button, Group, Loader, Select, Stack, Text, TextInput } from "@mantine/core";
import { SegmentedField } from "../../components/segmented-field";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { type UsageInput, useUsage } from "./queries";
import { TagKeyPicker } from "./tag-key-picker";
import { UsageCharts } from "./usage-charts";
import { UsageEmptyState } from "./usage-empty";
import { RANGE_PRESETS, resolveRange, type UsageSearch, type UsageSplit } from "./usage-search";
import { UsageTable } from "./usage-table";
import { ClassCostTable } from "../../components/class-cost-table";
import { InvoiceDownload } from "./invoice-download";
import { OwnCallsCard, Totals } from "./usage-totals";
import { PassRateCard } from "./pass-rate-card";

const SPLIT_OPTIONS: { value: UsageSplit; label: string }[] = [
  { value: "none", label: "None" },
  { value: "model", label: "Model" },
  { value: "provider", label: "Provider" },
  { value: "source", label: "Source" },
  { value: "api", label: "API" },
  { value: "tag", label: "Tag" },
  { value: "route", label: "Route" },
  { value: "routeVersion", label: "Route version" },
];

export function UsagePage() {
  const search = useSearch({ from: "/usage" }) as UsageSearch;
  const navigate = useNavigate({ from: "/usage" });
  const [now, setNow] = useState(() => Date.now());
  const r = resolveRange(search, now);
  const split = search.split ?? "none";
  const tagKey = split === "tag" ? (search.tag ?? "") : "";
  const set = (patch: Partial<UsageSearch>) => navigate({ search: (prev: UsageSearch) => ({ ...prev, ...patch }), replace: false });

  const range = { from: r.from.toISOString(), to: r.to.toISOString(), bucket: r.bucket };
  const groupBy = split === "tag" && !tagKey ? ("none" as const) : split;
  // The main figures are the application's calls; Hone's own (judges, evaluations, ...) are summed
  // apart. Split by source, the charts and the table show every call, Hone's own as `internal`.
  const bySource = groupBy === "source";
  const appGroupBy = bySource ? "none" : groupBy;
  // The token classes of the totals: asked of the main query when it is not split (cheap), else of a query of their own.
  const app: UsageInput = {
    ...range,
    groupBy: appGroupBy,
    ...(groupBy === "tag" ? { tagKey } : {}),
    filter: { internal: false },
    classes: appGroupBy === "none",
  };
  const appClasses: UsageInput = { ...range, groupBy: "none", filter: { internal: false }, classes: true };
  const own: UsageInput = { ...range, groupBy: "none", filter: { internal: true } };
  const all: UsageInput = { ...range, groupBy: "source" };
  const enabled = !r.problem;
  const usage = useUsage(app, { enabled });
  const ownUsage = useUsage(own, { enabled });
  const sourceUsage = useUsage(all, { enabled: enabled && bySource });
  const classUsage = useUsage(appClasses, { enabled: enabled && appGroupBy !== "none" });
  const classTotals = appGroupBy === "none" ? usage.data?.totals : classUsage.data?.totals;
  const data = usage.data;
  const splitUsage = bySource ? sourceUsage.data : data;
  const fetching = usage.isFetching || ownUsage.isFetching || sourceUsage.isFetching;

  return (
    <Stack gap="md">
      <PageHeader
        title="Usage"
        description="Your application's requests, tokens, cost, errors and latency over time, with Hone's own calls apart. Buckets are UTC hours or days; every figure is summed from the logs."
        actions={
          <Button variant="default" onClick={() => setNow(Date.now())} loading={fetching && !usage.isPending}>
            Refresh
          </Button>
        }
      />
      <Group align="flex-end" gap="md" wrap="wrap">
        <SegmentedField
          label="Range"
          value={r.range}
          onChange={(v) => set({ range: v as UsageSearch["range"], bucket: undefined })}
          data={[...RANGE_PRESETS.map((p) => ({ value: p.value, label: p.label })), { value: "custom", label: "Custom" }]}
        />
        {r.range === "custom" ? (
          <>
            <TextInput type="date" label="From (UTC)" value={r.customFrom} onChange={(e) => e.currentTarget.value && set({ from: e.currentTarget.value })} />
            <TextInput type="date" label="To (UTC)" value={r.customTo} onChange={(e) => e.currentTarget.value && set({ to: e.currentTarget.value })} />
          </>
        ) : null}
        <SegmentedField
          label="Per"
          value={r.bucket}
          onChange={(v) => set({ bucket: v as "hour" | "day" })}
          data={[
            { value: "hour", label: "Hour", disabled: !r.hourAllowed },
            { value: "day", label: "Day" },
          ]}
        />
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
      {bySource ? (
        <Text size="sm" c="dimmed">
          Split by source, the charts and the table count every call, Hone's own calls as the group "internal".
        </Text>
      ) : null}
      {r.problem ? <ErrorAlert error={new Error(r.problem)} title="Choose another range" /> : null}
      <ErrorAlert error={usage.error ?? ownUsage.error ?? sourceUsage.error} title="Usage could not be loaded" />
      {usage.isPending && !r.problem ? <Loader aria-label="Loading usage" /> : null}
      {data ? (
        <Stack gap="md" style={{ opacity: usage.isPlaceholderData ? 0.6 : 1 }} aria-busy={fetching}>
          <Totals totals={data.totals} />
          {ownUsage.data ? <OwnCallsCard totals={ownUsage.data.totals} /> : null}
          {data.totals.requests === 0 && !(bySource && splitUsage?.totals.requests) ? (
            <UsageEmptyState />
          ) : splitUsage ? (
            <>
              <UsageCharts usage={splitUsage} split={groupBy} tagKey={tagKey} />
              <UsageTable usage={splitUsage} split={groupBy} tagKey={tagKey} totalLabel={bySource ? "Total (Hone's own calls included)" : "Total"} />
              <Group align="flex-start" gap="md">
                {classTotals ? (
                  <ClassCostTable classes={classTotals.classes} total={classTotals.costUsd} caption="Your application's cost by token class over the range" />
                ) : null}
                <InvoiceDownload from={r.from} to={r.to} />
              </Group>
              <PassRateCard from={r.from} to={r.to} split={groupBy} />
            </>
          ) : (
            <Loader aria-label="Loading usage by source" />
          )}
        </Stack>
      ) : null}
    </Stack>
  );
}
