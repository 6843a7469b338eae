import { ActionIcon, Autocomplete, Button, Group, Select, Stack, Text, Textarea } from "@mantine/core";
import { draft, extrasOf, ROLES, type Role } from "./drafts";
import type { PlaygroundForm } from "./form";
import { Panel } from "./panel";

/** The messages sent to every model: a role and a text each (tool messages also name their call). */
export function ConversationPanel({ form }: { form: PlaygroundForm }) {
  const messages = form.values.messages;
  return (
    <Panel title="Conversation">
      {messages.map((d, i) => {
        const extras = extrasOf(d);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: messages are edited in place by position
          <Group key={i} align="flex-start" gap="xs" wrap="nowrap" data-testid="draft-message">
            <Select
              aria-label={`Role of message ${i + 1}`}
              data={[...ROLES]}
              value={d.role}
              onChange={(v) => v && form.setFieldValue(`messages.${i}.role`, v as Role)}
              w={110}
              allowDeselect={false}
            />
            <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
              <Textarea aria-label={`Message ${i + 1}`} {...form.getInputProps(`messages.${i}.content`)} autosize minRows={1} maxRows={10} />
              {d.role === "tool" ? (
                <Autocomplete
                  size="xs"
                  aria-label={`Tool call id of message ${i + 1}`}
                  placeholder="tool_call_id"
                  {...form.getInputProps(`messages.${i}.toolCallId`)}
                  data={[]}
                />
              ) : null}
              {extras ? (
                <Group gap="xs">
                  <Text size="xs" c="dimmed">
                    Also sends {extras}, as the log had them.
                  </Text>
                  <Button
                    size="compact-xs"
                    variant="subtle"
                    onClick={() => form.setFieldValue(`messages.${i}`, { ...d, media: null, toolCalls: null })}
                    aria-label={`Drop the extras of message ${i + 1}`}
                  >
                    Drop them
                  </Button>
                </Group>
              ) : null}
            </Stack>
            <ActionIcon variant="subtle" color="gray" size="lg" aria-label={`Remove message ${i + 1}`} onClick={() => form.removeListItem("messages", i)}>
              ✕
            </ActionIcon>
          </Group>
        );
      })}
      <Button
        size="xs"
        variant="default"
        w="fit-content"
        onClick={() => form.insertListItem("messages", draft(messages.at(-1)?.role === "user" ? "assistant" : "user"))}
      >
        Add a message
      </Button>
    </Panel>
  );
}
