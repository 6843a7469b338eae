import { Button, Group, Select, Stack, Switch, TextInput } from "@mantine/core";
import { useLocalStorage } from "@mantine/hooks";
import { useMemo } from "react";
import { DebouncedInput } from "./debounced-input";
import { ExcludeFilter } from "./exclude-filter";
import { FilterChips } from "./filter-chips";
import { useLogFacets } from "./queries";
import { API_LABELS, APIS, hasFilters, type LogsSearch, RANGE_LABELS, RANGES, type Range, SOURCE_LABELS, SOURCES, STATUS_CLASSES } from "./search";
import { TagFilter } from "./tag-filter";

type Props = {
  search: LogsSearch;
  onChange(patch: Partial<LogsSearch>): void;
  onClear(): void;
  seenModels: string[];
  /** The less used filters behind "More filters" (the Logs page); otherwise all are shown. */
  collapsible?: boolean;
};

const toLocalInput = (iso: string | undefined) => {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : undefined);

export const INTERNAL_TOGGLE_LABEL = "Show Hone's own calls (judges, evaluations, playground)";

/** The filters of the logs (and of a dataset's import from logs): every one is in `search`. */
/** Filters under "More filters": shown when asked for, or when one of them is set. */
const MORE: (keyof LogsSearch)[] = [
  "status",
  "provider",
  "cache",
  "completionId",
  "tag",
  "notTag",
  "noTag",
  "notModel",
  "notStatus",
  "notStatusClass",
  "notSource",
  "notApi",
  "notProvider",
];

/** The filters of the logs (and of a dataset's import from logs): every one is in `search`. */
export function FilterBar({ search, onChange, onClear, seenModels, collapsible = false }: Props) {
  // Suggestions: models and providers of the newest logs (one cheap query), and those on screen.
  const facets = useLogFacets();
  const modelData = useMemo(() => [...new Set([...(facets.data?.models ?? []).map((m) => m.value), ...seenModels])].sort(), [facets.data, seenModels]);
  const providerData = useMemo(() => (facets.data?.providers ?? []).map((p) => p.value), [facets.data]);
  const select = { size: "xs" as const, placeholder: "any", clearable: true, comboboxProps: { withinPortal: true } };
  const [moreWanted, setMoreWanted] = useLocalStorage({ key: "hone-logs-more-filters", defaultValue: false });
  const moreSet = MORE.filter((k) => search[k] !== undefined).length;
  const more = !collapsible || moreWanted || moreSet > 0;

  return (
    <Stack gap="xs" mb="sm" role="search" aria-label="Log filters">
      <Group gap="xs" align="flex-end">
        <DebouncedInput label="Search" value={search.q} onCommit={(q) => onChange({ q })} w={190} placeholder="text in request or response" />
        <DebouncedInput label="Model" value={search.model} onCommit={(model) => onChange({ model })} suggestions={modelData} w={160} placeholder="any" />
        <Select
          {...select}
          label="Status class"
          w={110}
          value={search.statusClass ?? null}
          onChange={(v) => onChange({ statusClass: (v as LogsSearch["statusClass"]) ?? undefined })}
          data={STATUS_CLASSES.map((c) => ({ value: c, label: c === "none" ? "no status" : c }))}
        />
        <Select
          {...select}
          label="Source"
          w={150}
          value={search.source ?? null}
          onChange={(v) => onChange({ source: (v as LogsSearch["source"]) ?? undefined })}
          data={SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] ?? s }))}
        />
        <Select
          {...select}
          label="API"
          w={150}
          value={search.api ?? null}
          onChange={(v) => onChange({ api: (v as LogsSearch["api"]) ?? undefined })}
          data={APIS.map((a) => ({ value: a, label: API_LABELS[a] ?? a }))}
        />
        <Select
          {...select}
          label="Time range"
          w={140}
          value={search.range ?? null}
          onChange={(v) =>
            onChange(
              v === "custom"
                ? { range: "custom", from: search.from ?? new Date(Date.now() - 86_400_000).toISOString() }
                : { range: (v as Range) ?? undefined, from: undefined, to: undefined },
            )
          }
          data={RANGES.map((r) => ({ value: r, label: RANGE_LABELS[r] }))}
          placeholder="all time"
        />
        {search.range === "custom" ? (
          <>
            <TextInput
              type="datetime-local"
              label="From"
              size="xs"
              w={180}
              value={toLocalInput(search.from)}
              onChange={(e) => onChange({ from: fromLocalInput(e.currentTarget.value) })}
            />
            <TextInput
              type="datetime-local"
              label="To"
              size="xs"
              w={180}
              value={toLocalInput(search.to)}
              onChange={(e) => onChange({ to: fromLocalInput(e.currentTarget.value) })}
            />
          </>
        ) : null}
        {!collapsible || moreSet ? null : (
          // While one of them is set the more filters stay shown (their values are on screen).
          <Button size="xs" variant="default" onClick={() => setMoreWanted(!more)} aria-expanded={more} aria-controls="hone-more-filters">
            {more ? "Fewer filters" : "More filters"}
          </Button>
        )}
        <Button size="xs" variant="subtle" color="gray" onClick={onClear} disabled={!hasFilters(search)}>
          Clear all
        </Button>
      </Group>
      {more ? (
        <Group gap="xs" align="flex-end" id="hone-more-filters">
          <DebouncedInput
            label="Status code"
            value={search.status === undefined ? undefined : String(search.status)}
            onCommit={(v) => {
              const n = v === undefined ? undefined : Number(v);
              onChange({ status: n !== undefined && Number.isInteger(n) && n >= 0 && n <= 999 ? n : undefined });
            }}
            w={90}
            placeholder="any"
          />
          <DebouncedInput
            label="Provider"
            value={search.provider}
            onCommit={(provider) => onChange({ provider })}
            suggestions={providerData}
            w={120}
            placeholder="any"
          />
          <Select
            {...select}
            label="Cache"
            w={90}
            value={search.cache ?? null}
            onChange={(v) => onChange({ cache: (v as LogsSearch["cache"]) ?? undefined })}
            data={[
              { value: "hit", label: "hit" },
              { value: "miss", label: "miss" },
            ]}
          />
          <DebouncedInput
            label="Completion id"
            value={search.completionId}
            onCommit={(completionId) => onChange({ completionId })}
            w={150}
            placeholder="chatcmpl-…"
          />
          <TagFilter search={search} onChange={onChange} />
          <ExcludeFilter onChange={onChange} models={modelData} providers={providerData} />
        </Group>
      ) : null}
      <Switch
        size="sm"
        label={INTERNAL_TOGGLE_LABEL}
        checked={search.internal === 1}
        onChange={(e) => onChange({ internal: e.currentTarget.checked ? 1 : undefined })}
      />
      <Switch
        size="sm"
        label="Only calls Hone refused (limits, budgets, allowed models, scopes)"
        checked={search.refused === 1}
        onChange={(e) => onChange({ refused: e.currentTarget.checked ? 1 : undefined })}
      />
      <Switch
        size="sm"
        label="Only calls with masked data (e-mail addresses, card numbers, secrets…)"
        checked={search.masked === 1}
        onChange={(e) => onChange({ masked: e.currentTarget.checked ? 1 : undefined })}
      />
      <FilterChips search={search} onChange={onChange} />
    </Stack>
  );
}
