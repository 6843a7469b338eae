import { ActionIcon, Autocomplete, Button, Group } from "@mantine/core";
import { MAX_MODELS, type PlaygroundForm } from "./form";
import { Panel } from "./panel";
import { useModelSuggestions } from "./queries";

/** Up to four models, each answering in its own column. */
export function ModelsPanel({ form }: { form: PlaygroundForm }) {
  const suggestions = useModelSuggestions();
  const models = form.values.models;
  return (
    <Panel title="Models">
      {models.map((_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the column's position is its identity
        <Group key={i} gap="xs" wrap="nowrap" align="flex-end">
          <Autocomplete
            label={`Model ${i + 1}`}
            data={suggestions}
            {...form.getInputProps(`models.${i}`)}
            style={{ flex: 1, minWidth: 0 }}
            placeholder="gpt-4o-mini, anthropic:…, hone:<slug>"
          />
          {models.length > 1 ? (
            <ActionIcon variant="subtle" color="gray" size="lg" mb={2} aria-label={`Remove model ${i + 1}`} onClick={() => form.removeListItem("models", i)}>
              ✕
            </ActionIcon>
          ) : null}
        </Group>
      ))}
      {models.length < MAX_MODELS ? (
        <Button size="xs" variant="default" onClick={() => form.insertListItem("models", "")} w="fit-content">
          Add a model
        </Button>
      ) : null}
    </Panel>
  );
}
