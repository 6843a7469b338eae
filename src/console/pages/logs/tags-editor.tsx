import { Button, Group, Stack, Table, Text, TextInput, VisuallyHidden } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { MayButton } from "../../components/may-button";
import { type LogDetailData, useSetLogTags } from "./queries";

/** The log's tags: add, edit (a new value for a key) and remove, one log at a time. */
export function TagsEditor({ log }: { log: LogDetailData }) {
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const setTags = useSetLogTags({ onSuccess: () => setEditing(null) });
  const form = useForm({ mode: "controlled", initialValues: { key: "", value: "" }, validate: { key: (v) => (v.trim() ? null : "A key is required") } });
  const filter = { ids: [log.id] };
  const entries = Object.entries(log.tags).sort(([a], [b]) => a.localeCompare(b));
  const save = (key: string) => setTags.mutate({ filter, set: { [key]: draft } });
  return (
    <Stack gap="xs" data-testid="tags-editor">
      {entries.length ? (
        <Table withRowBorders verticalSpacing={4} fz="sm" aria-label="Tags">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="35%">Key</Table.Th>
              <Table.Th>Value</Table.Th>
              <Table.Th w={150}>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map(([key, value]) => (
              <Table.Tr key={key} data-tag-key={key}>
                <Table.Td ff="monospace">{key}</Table.Td>
                <Table.Td ff="monospace">
                  {editing === key ? (
                    <TextInput
                      size="xs"
                      aria-label={`New value of ${key}`}
                      value={draft}
                      onChange={(e) => setDraft(e.currentTarget.value)}
                      onKeyDown={(e) => {
                        if (e.key === "Enter") save(key);
                        if (e.key === "Escape") setEditing(null);
                      }}
                      data-autofocus
                    />
                  ) : (
                    value
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} justify="flex-end" wrap="nowrap">
                    {editing === key ? (
                      <>
                        <Button size="compact-xs" onClick={() => save(key)} loading={setTags.isPending}>
                          Save
                        </Button>
                        <Button size="compact-xs" variant="subtle" color="gray" onClick={() => setEditing(null)}>
                          Cancel
                        </Button>
                      </>
                    ) : (
                      <>
                        <MayButton
                          may="logs.setTags"
                          size="compact-xs"
                          variant="subtle"
                          aria-label={`Edit tag ${key}`}
                          onClick={() => {
                            setEditing(key);
                            setDraft(value);
                          }}
                        >
                          Edit
                        </MayButton>
                        <MayButton
                          may="logs.setTags"
                          size="compact-xs"
                          variant="subtle"
                          color="red"
                          aria-label={`Remove tag ${key}`}
                          onClick={() => setTags.mutate({ filter, remove: [key] })}
                          disabled={setTags.isPending}
                        >
                          Remove
                        </MayButton>
                      </>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : (
        <Text size="sm" c="dimmed">
          No tags.
        </Text>
      )}
      <Group
        gap="xs"
        align="flex-end"
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          form.onSubmit(({ key, value }) => setTags.mutate({ filter, set: { [key.trim()]: value } }, { onSuccess: () => form.reset() }))();
        }}
      >
        <TextInput size="xs" label="New tag key" w={160} {...form.getInputProps("key")} />
        <TextInput size="xs" label="New tag value" w={200} {...form.getInputProps("value")} />
        <MayButton may="logs.setTags" size="xs" type="submit" variant="default" disabled={!form.values.key.trim()} loading={setTags.isPending && !editing}>
          Add tag
        </MayButton>
      </Group>
    </Stack>
  );
}
