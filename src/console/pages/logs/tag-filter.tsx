import { Autocomplete, Button, Select } from "@mantine/core";
import { useForm } from "@mantine/form";
import { InlineForm, SMALL_FIELD } from "../../components/inline-form";
import { useMemo } from "react";
import { useTagKeys, useTagValues } from "./queries";
import type { LogsSearch } from "./search";

type Op = "is" | "not" | "absent";
const OPS: { value: Op; label: string }[] = [
  { value: "is", label: "is" },
  { value: "not", label: "is not" },
  { value: "absent", label: "is absent" },
];

/** Adds a tag filter: a key that is (or is not) a value, or a key a log must not have. */
export function TagFilter({ search, onChange }: { search: LogsSearch; onChange(patch: Partial<LogsSearch>): void }) {
  const form = useForm<{ key: string; op: Op; value: string }>({ mode: "controlled", initialValues: { key: "", op: "is", value: "" } });
  const { key, op } = form.values;
  const keys = useTagKeys();
  const values = useTagValues(op === "absent" ? "" : key.trim());
  const keyData = useMemo(() => (keys.data ?? []).map((k) => (typeof k === "string" ? k : k.key)), [keys.data]);
  const add = form.onSubmit(({ key: k, op: o, value }) => {
    const name = k.trim();
    if (!name) return;
    const add = (list: string[] | undefined, item: string) => [...new Set([...(list ?? []), item])].slice(0, 20);
    if (o === "absent") onChange({ noTag: add(search.noTag, name) });
    else if (o === "not") onChange({ notTag: add(search.notTag, `${name}=${value}`) });
    else onChange({ tag: add(search.tag, `${name}=${value}`) });
    form.setFieldValue("value", "");
  });
  return (
    <InlineForm onSubmit={add}>
      <Autocomplete label="Tag key" {...SMALL_FIELD} w={120} data={keyData} placeholder="prompt_id" limit={50} {...form.getInputProps("key")} />
      <Select label="Tag match" {...SMALL_FIELD} w={96} data={OPS} allowDeselect={false} {...form.getInputProps("op")} />
      {op === "absent" ? null : (
        <Autocomplete
          label="Tag value"
          {...SMALL_FIELD}
          w={120}
          data={(values.data ?? []).map((v) => v.value)}
          placeholder={key ? "value" : "choose a key"}
          limit={50}
          {...form.getInputProps("value")}
        />
      )}
      <Button size="xs" variant="default" type="submit" disabled={!key.trim()}>
        Add tag filter
      </Button>
    </InlineForm>
  );
}
