import { Group, SegmentedControl, Select, Text, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { plural } from "../../lib/format";
import { SOURCE_LABELS } from "./entry-card";
import type { EntriesSearch } from "./search";
import { JUDGEMENTS, SOURCES, viewOf } from "./search";

/** The dataset page's filters (kept in the URL), the table/cards switch and how many entries match. */
export function EntryFilters({
  search,
  criteria,
  matching,
  onChange,
}: {
  search: EntriesSearch;
  criteria: { id: string; name: string }[];
  matching: number | null;
  onChange(patch: Partial<EntriesSearch>): void;
}) {
  // Each narrows the entries to one value, or "any" when cleared.
  const choices: { key: "split" | "source" | "criterion"; label: string; w: number; data: (string | { value: string; label: string })[] }[] = [
    { key: "split", label: "Split", w: 110, data: ["TRAIN", "TEST"] },
    { key: "source", label: "Source", w: 150, data: SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s]! })) },
    { key: "criterion", label: "Verdict of criterion", w: 190, data: criteria.map((c) => ({ value: c.id, label: c.name })) },
  ];
  const setText = useDebouncedCallback((q: string) => onChange({ q: q.trim() || undefined }), 350);
  return (
    <Group gap="xs" align="flex-end" mb="sm" wrap="wrap" justify="space-between">
      <Group gap="xs" align="flex-end" role="search" aria-label="Entry filters" wrap="wrap">
        {choices.map((f) => (
          <Select
            key={f.key}
            label={f.label}
            w={f.w}
            data={f.data}
            value={search[f.key] ?? null}
            onChange={(v) => onChange({ [f.key]: v ?? undefined })}
            clearable
            placeholder="any"
          />
        ))}
        <Select
          label="Verdict"
          w={100}
          data={[...JUDGEMENTS]}
          value={search.criterion ? (search.judgement ?? "FAIL") : null}
          onChange={(v) => onChange({ judgement: (v as EntriesSearch["judgement"]) ?? undefined })}
          disabled={!search.criterion}
          allowDeselect={false}
        />
        <TextInput label="Text" w={200} placeholder="in the messages" defaultValue={search.q ?? ""} onChange={(e) => setText(e.currentTarget.value)} />
      </Group>
      <Group gap="sm" align="center">
        <Text size="sm" c="dimmed" data-testid="entry-count" aria-live="polite">
          {matching === null ? "Counting…" : `${plural(matching, "entry", "entries")} ${matching === 1 ? "matches" : "match"}`}
        </Text>
        <SegmentedControl
          size="xs"
          aria-label="View"
          data={[
            { value: "table", label: "Table" },
            { value: "cards", label: "Cards" },
          ]}
          value={viewOf(search)}
          onChange={(v) => onChange({ view: v === viewOf({ ...search, view: undefined }) ? undefined : (v as "table" | "cards") })}
        />
      </Group>
    </Group>
  );
}
