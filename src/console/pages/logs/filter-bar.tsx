import { ActionIcon, Autocomplete, Badge, Button, Group, Select, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "../../lib/trpc";
import { hasFilters, type LogsSearch, RANGE_LABELS, RANGES, type Range, SOURCES, STATUS_CLASSES, splitTag } from "./search";
import { SOURCE_LABELS } from "./logs-table";

type Props = { search: LogsSearch; onChange(patch: Partial<LogsSearch>): void; onClear(): void; seenModels: string[] };

const DEBOUNCE_MS = 350;

/** A text filter typed into freely: the URL follows DEBOUNCE_MS after the last key. */
function DebouncedInput({
  label,
  value,
  onCommit,
  placeholder,
  w,
  suggestions,
}: {
  label: string;
  value: string | undefined;
  onCommit(v: string | undefined): void;
  placeholder?: string;
  w?: number;
  suggestions?: string[];
}) {
  const [text, setText] = useState(value ?? "");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const cancel = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
  };
  // A change from outside (Clear all, a link) wins over a commit still waiting.
  useEffect(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    setText(value ?? "");
  }, [value]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const commitNow = (v: string) => {
    cancel();
    onCommit(v.trim() || undefined);
  };
  const change = (v: string) => {
    setText(v);
    cancel();
    timer.current = setTimeout(() => commitNow(v), DEBOUNCE_MS);
  };
  if (suggestions) {
    return (
      <Autocomplete
        label={label}
        size="xs"
        w={w}
        value={text}
        onChange={change}
        onOptionSubmit={(v) => {
          setText(v);
          // Mantine calls onChange with the option too: commit once, now.
          queueMicrotask(() => commitNow(v));
        }}
        data={suggestions}
        placeholder={placeholder}
        limit={30}
        clearable
        comboboxProps={{ withinPortal: true }}
      />
    );
  }
  return <TextInput label={label} size="xs" w={w} value={text} onChange={(e) => change(e.currentTarget.value)} placeholder={placeholder} />;
}

const toLocalInput = (iso: string | undefined) => {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : undefined);

function TagFilter({ tags, onChange }: { tags: string[]; onChange(tags: string[] | undefined): void }) {
  const trpc = useTRPC();
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const keys = useQuery(trpc.logs.tagKeys.queryOptions(undefined, { staleTime: 60_000 }));
  const values = useQuery(trpc.logs.tagValues.queryOptions({ key }, { enabled: key.length > 0, staleTime: 60_000 }));
  const keyData = useMemo(() => (keys.data ?? []).map((k) => (typeof k === "string" ? k : k.key)), [keys.data]);
  const add = () => {
    if (!key.trim()) return;
    const tag = `${key.trim()}=${value}`;
    onChange([...new Set([...tags, tag])]);
    setValue("");
  };
  return (
    <Group gap={6} align="flex-end" wrap="nowrap">
      <Autocomplete
        label="Tag key"
        size="xs"
        w={130}
        value={key}
        onChange={setKey}
        data={keyData}
        placeholder="prompt_id"
        limit={50}
        comboboxProps={{ withinPortal: true }}
      />
      <Autocomplete
        label="Tag value"
        size="xs"
        w={130}
        value={value}
        onChange={setValue}
        data={(values.data ?? []).map((v) => v.value)}
        placeholder={key ? "value" : "choose a key"}
        limit={50}
        comboboxProps={{ withinPortal: true }}
        onKeyDown={(e) => {
          if (e.key === "Enter") add();
        }}
      />
      <Button size="xs" variant="default" onClick={add} disabled={!key.trim()}>
        Add tag filter
      </Button>
    </Group>
  );
}

export function FilterBar({ search, onChange, onClear, seenModels }: Props) {
  const trpc = useTRPC();
  // Suggestions: models and providers of the newest logs (one cheap query), and those on screen.
  const facets = useQuery(trpc.logs.facets.queryOptions(undefined, { staleTime: 300_000 }));
  const modelData = useMemo(() => [...new Set([...(facets.data?.models ?? []).map((m) => m.value), ...seenModels])].sort(), [facets.data, seenModels]);
  const providerData = useMemo(() => (facets.data?.providers ?? []).map((p) => p.value), [facets.data]);
  const tags = search.tag ?? [];

  return (
    <Group gap="xs" align="flex-end" mb="sm" role="search" aria-label="Log filters">
      <DebouncedInput label="Model" value={search.model} onCommit={(model) => onChange({ model })} suggestions={modelData} w={200} placeholder="any" />
      <Select
        label="Status class"
        size="xs"
        w={110}
        value={search.statusClass ?? null}
        onChange={(v) => onChange({ statusClass: (v as LogsSearch["statusClass"]) ?? undefined })}
        data={STATUS_CLASSES.map((c) => ({ value: c, label: c === "none" ? "no status" : c }))}
        placeholder="any"
        clearable
        comboboxProps={{ withinPortal: true }}
      />
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
      <Select
        label="Source"
        size="xs"
        w={150}
        value={search.source ?? null}
        onChange={(v) => onChange({ source: (v as LogsSearch["source"]) ?? undefined })}
        data={SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] ?? s }))}
        placeholder="any"
        clearable
        comboboxProps={{ withinPortal: true }}
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
        label="Cache"
        size="xs"
        w={100}
        value={search.cache ?? null}
        onChange={(v) => onChange({ cache: (v as LogsSearch["cache"]) ?? undefined })}
        data={[
          { value: "hit", label: "hit" },
          { value: "miss", label: "miss" },
        ]}
        placeholder="any"
        clearable
        comboboxProps={{ withinPortal: true }}
      />
      <Select
        label="Time range"
        size="xs"
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
        clearable
        comboboxProps={{ withinPortal: true }}
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
      <DebouncedInput
        label="Completion id"
        value={search.completionId}
        onCommit={(completionId) => onChange({ completionId })}
        w={170}
        placeholder="chatcmpl-…"
      />
      <DebouncedInput label="Search" value={search.q} onCommit={(q) => onChange({ q })} w={200} placeholder="text in request or response" />
      <TagFilter tags={tags} onChange={(tag) => onChange({ tag: tag?.length ? tag : undefined })} />
      <Button size="xs" variant="subtle" color="gray" onClick={onClear} disabled={!hasFilters(search)}>
        Clear all
      </Button>
      {tags.length ? (
        <Group gap={4} w="100%" aria-label="Tag filters">
          {tags.map((t) => {
            const { key, value } = splitTag(t);
            return (
              <Badge
                key={t}
                variant="outline"
                tt="none"
                rightSection={
                  <ActionIcon
                    size="xs"
                    variant="transparent"
                    aria-label={`Remove tag filter ${key}=${value}`}
                    onClick={() => {
                      const rest = tags.filter((x) => x !== t);
                      onChange({ tag: rest.length ? rest : undefined });
                    }}
                  >
                    ×
                  </ActionIcon>
                }
              >
                {key} = {value || '""'}
              </Badge>
            );
          })}
        </Group>
      ) : null}
    </Group>
  );
}
