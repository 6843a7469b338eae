import { Button, Code, Group, NumberInput, Paper, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { MayButton } from "../../components/may-button";
import { RowActions } from "../../components/row-actions";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ACTIONS, DataTable } from "../../components/data-table";
import { ErrorAlert } from "../../components/error-alert";
import { formatNumber } from "../../lib/format";
import { type PriceOverride, useCostRecalculation, useCreatePriceOverride, useDeletePriceOverride, usePriceOverrides, useRecalculateCosts } from "./queries";

/** The rates the form offers, $ per million tokens (the server accepts a few more: audio, reasoning). */
const RATE_FIELDS = [
  ["input_mtok", "Input"],
  ["cache_read_mtok", "Cache reads"],
  ["cache_write_mtok", "Cache writes (5 min)"],
  ["cache_write_1h_mtok", "Cache writes (1 hour)"],
  ["output_mtok", "Output"],
] as const;
type RateKey = (typeof RATE_FIELDS)[number][0];
type FormState = {
  model: string;
  kind: "rates" | "multiplier";
  multiplier: number | string;
  usdPerHour: number | string;
  effectiveFrom: string;
  note: string;
} & Record<RateKey, number | string>;

const EMPTY: FormState = {
  model: "",
  kind: "rates",
  multiplier: "",
  usdPerHour: "",
  effectiveFrom: "",
  note: "",
  input_mtok: "",
  cache_read_mtok: "",
  cache_write_mtok: "",
  cache_write_1h_mtok: "",
  output_mtok: "",
};

function priceText(o: PriceOverride): string {
  if (o.multiplier != null) return `list price × ${o.multiplier}`;
  const parts = Object.entries(o.rates ?? {}).map(([k, v]) => `${k.replace(/_mtok$/, "").replaceAll("_", " ")} $${v}/M`);
  if (o.usdPerHour != null) parts.push(`$${o.usdPerHour} per hour of call time`);
  return parts.join(", ");
}

function OverrideForm() {
  const form = useForm<FormState>({ mode: "controlled", initialValues: EMPTY });
  const create = useCreatePriceOverride(() => form.reset());
  const submit = (f: FormState) => {
    const rates: Partial<Record<RateKey, number>> = {};
    for (const [k] of RATE_FIELDS) if (f[k] !== "" && f[k] != null) rates[k] = Number(f[k]);
    create.mutate({
      model: f.model.trim(),
      effectiveFrom: f.effectiveFrom ? `${f.effectiveFrom}T00:00:00Z` : null,
      note: f.note.trim() || null,
      ...(f.kind === "rates"
        ? { ...(Object.keys(rates).length ? { rates } : {}), ...(f.usdPerHour !== "" ? { usdPerHour: Number(f.usdPerHour) } : {}) }
        : { multiplier: f.multiplier === "" ? 0 : Number(f.multiplier) }),
    });
  };
  return (
    <Paper withBorder p="md" radius="md" component="form" onSubmit={form.onSubmit(submit)} aria-labelledby="new-override-title">
      <Stack gap="sm">
        <Title order={4} id="new-override-title">
          Add a price
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput label="Model" description="As the logs name it, e.g. openai:gpt-4o" {...form.getInputProps("model")} required />
          <TextInput label="From (UTC day)" description="Empty: every call" type="date" {...form.getInputProps("effectiveFrom")} />
          <TextInput label="Note" {...form.getInputProps("note")} />
        </SimpleGrid>
        <SegmentedControl
          aria-label="Price kind"
          value={form.values.kind}
          onChange={(v) => form.setFieldValue("kind", v as FormState["kind"])}
          data={[
            { value: "rates", label: "Rates per token class" },
            { value: "multiplier", label: "Multiplier of the list price" },
          ]}
          maw={460}
        />
        {form.values.kind === "rates" ? (
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
            {RATE_FIELDS.map(([k, label]) => (
              <NumberInput key={k} label={`${label}, $/M`} min={0} decimalScale={6} {...form.getInputProps(k)} />
            ))}
            <NumberInput label="Per hour of call time, $" min={0} decimalScale={4} {...form.getInputProps("usdPerHour")} />
          </SimpleGrid>
        ) : (
          <NumberInput
            label="Multiplier"
            description="0.8 is a 20% discount"
            min={0}
            step={0.05}
            decimalScale={4}
            maw={240}
            {...form.getInputProps("multiplier")}
            required
          />
        )}
        <ErrorAlert error={create.error} title="The price was not saved" />
        <Group>
          <MayButton may="pricing.createOverride" type="submit" loading={create.isPending}>
            Save price
          </MayButton>
        </Group>
      </Stack>
    </Paper>
  );
}

function Recalculate() {
  const [model, setModel] = useState("");
  const [id, setId] = useState<string | null>(null);
  const start = useRecalculateCosts();
  const progress = useCostRecalculation(id);
  const r = progress.data;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="recalculate-title">
      <Stack gap="sm">
        <Title order={4} id="recalculate-title">
          Recalculate stored logs
        </Title>
        <Text size="sm" c="dimmed" maw={720}>
          Logs keep the cost they were priced with. After adding or deleting a price, price the logs again: each at the price in force when its call was made.
          Usage follows within a minute.
        </Text>
        <Group align="flex-end">
          <TextInput label="Model" description="Empty: every log" value={model} onChange={(e) => setModel(e.currentTarget.value)} w={280} />
          <Button
            variant="default"
            loading={start.isPending}
            onClick={() =>
              start.mutate(
                { filter: model.trim() ? { model: model.trim() } : {} },
                {
                  onSuccess: (t) => {
                    setId(t.id);
                    notifications.show({ message: `Recalculating ${formatNumber(t.total)} logs` });
                  },
                },
              )
            }
          >
            Recalculate
          </Button>
        </Group>
        <ErrorAlert error={start.error ?? progress.error} title="The recalculation could not run" />
        {r ? (
          <Text size="sm" data-testid="recalculation-progress" data-status={r.status} role="status">
            {r.status === "DONE"
              ? `Done: ${formatNumber(r.done)} of ${formatNumber(r.total)} logs priced again, ${formatNumber(r.changed)} changed.`
              : r.status === "ERROR"
                ? `Stopped: ${r.errorMessage}`
                : `${formatNumber(r.done)} of ${formatNumber(r.total)} logs…`}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** The project's own prices: overrides of the list price by model and date, and recalculating stored logs. */
export function PricesTab() {
  const overrides = usePriceOverrides();
  const [deleting, setDeleting] = useState<PriceOverride | null>(null);
  const remove = useDeletePriceOverride(() => {
    notifications.show({ message: `Price override for ${deleting?.model} deleted` });
    setDeleting(null);
  });
  return (
    <Stack>
      <Text size="sm" c="dimmed" maw={760}>
        Costs come from the maintained price table (genai-prices) at the time of each call. Set your own price for a model: a negotiated discount, a fine-tune's
        serving price, or a custom or self-hosted model's price. It applies to calls made from its date on.
      </Text>
      <DataTable
        label="Price overrides"
        testId="price-overrides-table"
        striped
        minWidth={720}
        columns={["Model", "From", "Price", "Note", ACTIONS]}
        query={overrides}
        empty="No prices of your own: every call is priced at the list price."
        row={(o) => (
          <Table.Tr key={o.id} data-override-id={o.id}>
            <Table.Td>
              <Code>{o.model}</Code>
            </Table.Td>
            <Table.Td>{o.effectiveFrom.startsWith("1970-01-01") ? "always" : o.effectiveFrom.slice(0, 10)}</Table.Td>
            <Table.Td>{priceText(o)}</Table.Td>
            <Table.Td>{o.note ?? "–"}</Table.Td>
            <Table.Td>
              <RowActions deleteLabel={`Delete the price of ${o.model}`} deleteMay="pricing.deleteOverride" onDelete={() => setDeleting(o)} />
            </Table.Td>
          </Table.Tr>
        )}
      />
      <OverrideForm />
      <Recalculate />
      <ConfirmDelete
        target={deleting}
        title={`Delete the price of ${deleting?.model ?? ""}?`}
        confirmLabel="Delete price"
        onClose={() => setDeleting(null)}
        onConfirm={(t) => remove.mutate({ id: t.id })}
        mutation={remove}
      >
        <Text size="sm">New calls are priced at the list price again. Stored logs keep their cost until you recalculate them.</Text>
      </ConfirmDelete>
    </Stack>
  );
}
