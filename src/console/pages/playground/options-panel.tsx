import { JsonInput, MultiSelect, NumberInput, Paper, SimpleGrid } from "@mantine/core";
import type { PlaygroundForm } from "./form";
import { useCriteriaList } from "./queries";

/** Sampling settings, the criteria that judge each choice, and the tools offered. */
export function OptionsPanel({ form }: { form: PlaygroundForm }) {
  const criteria = useCriteriaList();
  return (
    <Paper withBorder p="sm" radius="md">
      <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
        <NumberInput label="Temperature" {...form.getInputProps("temperature")} min={0} max={2} step={0.1} decimalScale={2} />
        <NumberInput label="Max tokens" {...form.getInputProps("maxTokens")} min={1} max={65536} placeholder="model default" />
        <NumberInput label="Choices per model (n)" {...form.getInputProps("n")} min={1} max={4} />
      </SimpleGrid>
      <MultiSelect
        mt="xs"
        label="Criteria"
        description="Judge every choice and rank them best first (best of n); a judged run is not streamed"
        data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
        {...form.getInputProps("criteria")}
        clearable
      />
      <JsonInput
        mt="xs"
        label="Tools"
        description="A JSON array of function tools (optional)"
        {...form.getInputProps("tools")}
        autosize
        minRows={2}
        maxRows={12}
      />
    </Paper>
  );
}
