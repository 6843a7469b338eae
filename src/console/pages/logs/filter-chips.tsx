import { ActionIcon, Badge, Group } from "@mantine/core";
import { API_LABELS, type LogsSearch, SOURCE_LABELS, splitTag } from "./search";

type Chip = { key: string; text: string; remove: string; patch: Partial<LogsSearch> };

const without = (list: string[] | undefined, item: string) => {
  const rest = (list ?? []).filter((x) => x !== item);
  return rest.length ? rest : undefined;
};

/** The filters with no input of their own (tags, "is not", "absent"), as words. */
export function filterChips(s: LogsSearch): Chip[] {
  const chips: Chip[] = [];
  if (s.route)
    chips.push({ key: "route", text: `route is ${s.route}`, remove: `Remove filter route ${s.route}`, patch: { route: undefined, routeVersion: undefined } });
  if (s.routeVersion)
    chips.push({
      key: "routeVersion",
      text: `version is ${s.routeVersion}`,
      remove: `Remove filter version ${s.routeVersion}`,
      patch: { routeVersion: undefined },
    });
  for (const t of s.tag ?? []) {
    const { key, value } = splitTag(t);
    chips.push({ key: `tag:${t}`, text: `tag ${key} is ${value || '""'}`, remove: `Remove tag filter ${key}=${value}`, patch: { tag: without(s.tag, t) } });
  }
  for (const t of s.notTag ?? []) {
    const { key, value } = splitTag(t);
    chips.push({
      key: `notTag:${t}`,
      text: `tag ${key} is not ${value || '""'}`,
      remove: `Remove filter tag ${key} is not ${value}`,
      patch: { notTag: without(s.notTag, t) },
    });
  }
  for (const k of s.noTag ?? [])
    chips.push({ key: `noTag:${k}`, text: `tag ${k} is absent`, remove: `Remove filter tag ${k} is absent`, patch: { noTag: without(s.noTag, k) } });
  const not = (field: string, value: string | number | undefined, patch: Partial<LogsSearch>) => {
    if (value === undefined) return;
    chips.push({ key: `not:${field}`, text: `${field} is not ${value}`, remove: `Remove filter ${field} is not ${value}`, patch });
  };
  not("model", s.notModel, { notModel: undefined });
  not("status", s.notStatus, { notStatus: undefined });
  not("status class", s.notStatusClass === "none" ? "no status" : s.notStatusClass, { notStatusClass: undefined });
  not("source", s.notSource ? (SOURCE_LABELS[s.notSource] ?? s.notSource) : undefined, { notSource: undefined });
  not("API", s.notApi ? (API_LABELS[s.notApi] ?? s.notApi) : undefined, { notApi: undefined });
  not("provider", s.notProvider, { notProvider: undefined });
  return chips;
}

/** Removable chips for the tag and "is not" filters (all in the URL). */
export function FilterChips({ search, onChange }: { search: LogsSearch; onChange(patch: Partial<LogsSearch>): void }) {
  const chips = filterChips(search);
  if (!chips.length) return null;
  return (
    <Group gap={4} w="100%" role="list" aria-label="Tag and exclusion filters">
      {chips.map((c) => (
        <Badge
          key={c.key}
          role="listitem"
          variant="outline"
          color="gray"
          tt="none"
          size="lg"
          fw={500}
          rightSection={
            <ActionIcon size="xs" variant="transparent" color="gray" aria-label={c.remove} onClick={() => onChange(c.patch)}>
              ×
            </ActionIcon>
          }
        >
          <span data-testid="filter-chip">{c.text}</span>
        </Badge>
      ))}
    </Group>
  );
}
