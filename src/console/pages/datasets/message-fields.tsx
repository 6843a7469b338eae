import { ActionIcon, Autocomplete, Button, Group, JsonInput, Paper, Select, Stack, Text, Textarea, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { type EntryValues, newToolCall, ROLES, type Role } from "./entry-form";

type Form = UseFormReturnType<EntryValues>;
const mono = { input: { fontFamily: "monospace", fontSize: 12 } };
const multiline = (e: unknown) => (e ? <span style={{ whiteSpace: "pre-wrap" }}>{e as string}</span> : undefined);

/** One message of the entry editor: role, content, and the tool calls (assistant) or the call answered (tool). */
export function MessageFields({ form, index, count, earlierCallIds }: { form: Form; index: number; count: number; earlierCallIds: string[] }) {
  const m = form.values.messages[index]!;
  const path = `messages.${index}` as const;
  const n = index + 1;
  const messageError = form.errors[path];
  const roles: Role[] = ROLES.includes(m.role as (typeof ROLES)[number]) ? [...ROLES] : [...ROLES, m.role];
  return (
    <Paper withBorder p="sm" radius="md" data-testid={`message-form-${index}`} role="group" aria-label={`Message ${n}`}>
      <Group justify="space-between" align="flex-end" mb="xs" wrap="wrap" gap="xs">
        <Select
          label={`Message ${n} role`}
          data={roles}
          w={150}
          allowDeselect={false}
          {...form.getInputProps(`${path}.role`)}
          error={multiline(form.errors[`${path}.role`])}
        />
        <Group gap={4}>
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={`Move message ${n} up`}
            disabled={index === 0}
            onClick={() => form.reorderListItem("messages", { from: index, to: index - 1 })}
          >
            ↑
          </ActionIcon>
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={`Move message ${n} down`}
            disabled={index === count - 1}
            onClick={() => form.reorderListItem("messages", { from: index, to: index + 1 })}
          >
            ↓
          </ActionIcon>
          <Button size="xs" variant="subtle" color="red" aria-label={`Remove message ${n}`} onClick={() => form.removeListItem("messages", index)}>
            Remove
          </Button>
        </Group>
      </Group>
      <Stack gap="xs">
        {messageError ? (
          <Text size="sm" c="red" role="alert" style={{ whiteSpace: "pre-wrap" }}>
            {messageError as string}
          </Text>
        ) : null}
        {m.role === "tool" ? (
          <Autocomplete
            label="Tool call id"
            description="The assistant's call this message answers"
            data={[...new Set(earlierCallIds)]}
            {...form.getInputProps(`${path}.toolCallId`)}
            error={multiline(form.errors[`${path}.toolCallId`])}
          />
        ) : null}
        {m.contentJson !== null ? (
          <JsonInput
            label="Content (parts, as JSON)"
            autosize
            minRows={3}
            maxRows={16}
            styles={mono}
            {...form.getInputProps(`${path}.contentJson`)}
            error={multiline(form.errors[`${path}.contentJson`])}
            validationError={multiline(form.errors[`${path}.contentJson`]) ?? "not valid JSON"}
          />
        ) : (
          <Textarea
            label="Content"
            autosize
            minRows={m.role === "assistant" && m.toolCalls.length ? 1 : 2}
            maxRows={16}
            {...form.getInputProps(`${path}.content`)}
            error={multiline(form.errors[`${path}.content`])}
          />
        )}
        {m.role === "assistant" ? <ToolCallFields form={form} index={index} /> : null}
      </Stack>
    </Paper>
  );
}

function ToolCallFields({ form, index }: { form: Form; index: number }) {
  const m = form.values.messages[index]!;
  const path = `messages.${index}.toolCalls` as const;
  return (
    <Stack gap="xs">
      {form.errors[path] ? (
        <Text size="sm" c="red" style={{ whiteSpace: "pre-wrap" }}>
          {form.errors[path] as string}
        </Text>
      ) : null}
      {m.toolCalls.map((c, j) => (
        <Paper key={c.key} withBorder p="xs" radius="sm" data-testid={`tool-call-form-${j}`} role="group" aria-label={`Tool call ${j + 1}`}>
          <Group align="flex-start" gap="xs" wrap="wrap">
            <TextInput
              label="Function name"
              w={180}
              styles={mono}
              {...form.getInputProps(`${path}.${j}.name`)}
              error={multiline(form.errors[`${path}.${j}.name`])}
            />
            <TextInput label="Call id" w={170} styles={mono} {...form.getInputProps(`${path}.${j}.id`)} />
            <Button
              size="xs"
              variant="subtle"
              color="red"
              mt={26}
              aria-label={`Remove tool call ${j + 1}`}
              onClick={() => form.removeListItem(`messages.${index}.toolCalls`, j)}
            >
              Remove
            </Button>
          </Group>
          <JsonInput
            label="Arguments (JSON)"
            autosize
            minRows={2}
            maxRows={12}
            styles={mono}
            mt="xs"
            {...form.getInputProps(`${path}.${j}.arguments`)}
            error={multiline(form.errors[`${path}.${j}.arguments`])}
            validationError={multiline(form.errors[`${path}.${j}.arguments`]) ?? "not valid JSON"}
          />
        </Paper>
      ))}
      <Group>
        <Button size="xs" variant="default" onClick={() => form.insertListItem(`messages.${index}.toolCalls`, newToolCall())}>
          Add tool call
        </Button>
      </Group>
    </Stack>
  );
}
