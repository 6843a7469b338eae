import { Autocomplete, Button, Select } from "@mantine/core";
import { useForm } from "@mantine/form";
import { InlineForm, SMALL_FIELD } from "../../components/inline-form";
import { API_LABELS, type Api, APIS, type LogsSearch, SOURCE_LABELS, SOURCES, STATUS_CLASSES, type Source, type StatusClass } from "./search";

type Field = "model" | "statusClass" | "status" | "source" | "api" | "provider";
const FIELDS: { value: Field; label: string }[] = [
  { value: "model", label: "Model" },
  { value: "statusClass", label: "Status class" },
  { value: "status", label: "Status code" },
  { value: "source", label: "Source" },
  { value: "api", label: "API" },
  { value: "provider", label: "Provider" },
];

/** The fields whose values are a fixed list, chosen rather than typed. */
const CHOICES: Partial<Record<Field, { data: { value: string; label: string }[]; placeholder: string }>> = {
  statusClass: { data: STATUS_CLASSES.map((c) => ({ value: c, label: c === "none" ? "no status" : c })), placeholder: "class" },
  api: { data: APIS.map((a) => ({ value: a, label: API_LABELS[a] ?? a })), placeholder: "API" },
  source: { data: SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] ?? s })), placeholder: "source" },
};

/** Adds an "is not" filter on a model, a status class or code, a source or a provider. */
export function ExcludeFilter({ onChange, models, providers }: { onChange(patch: Partial<LogsSearch>): void; models: string[]; providers: string[] }) {
  const form = useForm<{ field: Field; value: string }>({ mode: "controlled", initialValues: { field: "model", value: "" } });
  const { field, value } = form.values;
  const add = form.onSubmit(({ field: f, value: raw }) => {
    const v = raw.trim();
    if (!v) return;
    if (f === "model") onChange({ notModel: v });
    else if (f === "provider") onChange({ notProvider: v });
    else if (f === "statusClass") onChange({ notStatusClass: v as StatusClass });
    else if (f === "source") onChange({ notSource: v as Source });
    else if (f === "api") onChange({ notApi: v as Api });
    else if (/^\d{1,3}$/.test(v)) onChange({ notStatus: Number(v) });
    else return;
    form.setFieldValue("value", "");
  });
  const choice = CHOICES[field];
  const valueProps = { label: "Value to exclude", ...SMALL_FIELD, w: 150, ...form.getInputProps("value") };
  return (
    <InlineForm onSubmit={add}>
      <Select
        label="Exclude"
        {...SMALL_FIELD}
        w={120}
        data={FIELDS}
        allowDeselect={false}
        {...form.getInputProps("field")}
        onChange={(v) => {
          form.setValues({ field: (v as Field) ?? "model", value: "" });
        }}
      />
      {choice ? (
        <Select {...valueProps} onChange={(v) => form.setFieldValue("value", v ?? "")} data={choice.data} placeholder={choice.placeholder} />
      ) : (
        <Autocomplete
          {...valueProps}
          data={field === "model" ? models : field === "provider" ? providers : []}
          placeholder={field === "status" ? "e.g. 429" : "value"}
          limit={30}
        />
      )}
      <Button size="xs" variant="default" type="submit" disabled={!value.trim()}>
        Exclude
      </Button>
    </InlineForm>
  );
}
