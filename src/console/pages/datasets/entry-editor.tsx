import { Alert, Button, Group, JsonInput, Menu, SegmentedControl, Stack, Text } from "@mantine/core";
import { focusFirstError } from "../../lib/focus-error";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useRef, useState } from "react";
import {
  apiErrorsOf,
  type EntryValues,
  entryPayload,
  entryToValues,
  messageToValues,
  newMessage,
  pretty,
  ROLES,
  validateEntry,
  valuesToMessage,
} from "./entry-form";
import { MessageFields } from "./message-fields";
import { type Entry, useAddEntries, useUpdateEntry } from "./queries";

const JSON_HINTS = {
  tools: { label: "Tools", hint: "the request's tools (function definitions), or null", rows: 3 },
  toolChoice: { label: "Tool choice", hint: '"auto", "none", "required", {"type":"function",...} or null', rows: 1 },
  responseFormat: { label: "Response format", hint: '{"type":"json_object"} or a json_schema, or null', rows: 1 },
  metadata: { label: "Metadata", hint: "string values", rows: 2 },
} as const;
const mono = { input: { fontFamily: "monospace", fontSize: 12 } };
const multiline = (e: unknown) => (e ? <span style={{ whiteSpace: "pre-wrap" }}>{e as string}</span> : undefined);

/**
 * Edits one entry (or adds one, without `entry`): a form per message, or the messages as JSON. The
 * server checks the entry exactly as the API does; its errors appear under the field they name.
 */
export function EntryEditor({ datasetId, entry, onDone, onCancel }: { datasetId: string; entry: Entry | null; onDone(): void; onCancel(): void }) {
  const form = useForm<EntryValues>({ initialValues: entryToValues(entry) });
  const root = useRef<HTMLDivElement>(null);
  /** Shows errors and brings the first into view. */
  const showErrors = (errors: Record<string, string>) => {
    form.setErrors(errors);
    focusFirstError(root.current);
  };
  const [jsonMode, setJsonMode] = useState(false);
  const [messagesJson, setMessagesJson] = useState("");
  const update = useUpdateEntry();
  const add = useAddEntries();
  const values = form.values;

  const toJson = () => {
    const problems = validateEntry(values);
    if (Object.keys(problems).some((k) => k.startsWith("messages"))) return form.setErrors(problems);
    setMessagesJson(pretty(values.messages.map(valuesToMessage)));
    form.clearErrors();
    setJsonMode(true);
  };
  /** The JSON text's messages into the form; false (and the error under the field) when it does not parse. */
  const fromJson = (): EntryValues["messages"] | null => {
    try {
      const parsed = JSON.parse(messagesJson);
      if (!Array.isArray(parsed)) throw new Error("messages must be an array of messages");
      return parsed.map(messageToValues);
    } catch (err) {
      form.setErrors({ messages: `not valid: ${(err as Error).message}` });
      return null;
    }
  };
  const toForm = () => {
    const messages = fromJson();
    if (!messages) return;
    form.setFieldValue("messages", messages);
    form.clearErrors();
    setJsonMode(false);
  };

  const saved = () => {
    notifications.show({ message: entry ? "Entry saved" : "Entry added" });
    onDone();
  };
  const submit = () => {
    let current = values;
    if (jsonMode) {
      const messages = fromJson();
      if (!messages) return;
      current = { ...values, messages };
    }
    const problems = validateEntry(current);
    form.setErrors(problems);
    if (Object.keys(problems).length) return showErrors(problems);
    const payload = entryPayload(current);
    const onError = (err: unknown) => showErrors(apiErrorsOf(err, current, jsonMode));
    if (entry) {
      update.mutate({ datasetId, entryId: entry.id, ...payload }, { onSuccess: saved, onError });
    } else {
      const { toolChoice, responseFormat, ...rest } = payload;
      add.mutate(
        { datasetId, entries: [{ ...rest, tool_choice: toolChoice, response_format: responseFormat }] },
        { onSuccess: (r) => (r.errors.length ? form.setErrors({ form: r.errors.map((e) => e.message).join("\n") }) : saved()), onError },
      );
    }
  };

  const callIds = (upTo: number) => values.messages.slice(0, upTo).flatMap((m) => m.toolCalls.map((c) => c.id).filter(Boolean));
  return (
    <Stack
      component="form"
      ref={root}
      gap="sm"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      data-testid="entry-editor"
    >
      <Group justify="space-between">
        <Text size="sm" fw={600}>
          Messages
        </Text>
        <Button size="xs" variant="default" onClick={jsonMode ? toForm : toJson}>
          {jsonMode ? "Edit as a form" : "Edit as JSON"}
        </Button>
      </Group>
      {jsonMode ? (
        <JsonInput
          label="Messages (JSON)"
          description="system / user / assistant / tool messages; the last one is the assistant's output to learn"
          value={messagesJson}
          onChange={setMessagesJson}
          autosize
          minRows={10}
          maxRows={30}
          styles={mono}
          error={multiline(form.errors.messages)}
          validationError={multiline(form.errors.messages) ?? "not valid JSON"}
        />
      ) : (
        <>
          {form.errors.messages ? (
            <Text size="sm" c="red" style={{ whiteSpace: "pre-wrap" }}>
              {form.errors.messages as string}
            </Text>
          ) : null}
          {values.messages.map((m, i) => (
            <MessageFields key={m.key} form={form} index={i} count={values.messages.length} earlierCallIds={callIds(i)} />
          ))}
          <Menu position="bottom-start">
            <Menu.Target>
              <Button size="xs" variant="default" w="fit-content">
                Add a message
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              {ROLES.map((r) => (
                <Menu.Item key={r} onClick={() => form.insertListItem("messages", newMessage(r))}>
                  {r}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
        </>
      )}
      {(Object.keys(JSON_HINTS) as (keyof typeof JSON_HINTS)[]).map((f) => (
        <JsonInput
          key={f}
          label={JSON_HINTS[f].label}
          description={JSON_HINTS[f].hint}
          autosize
          minRows={JSON_HINTS[f].rows}
          maxRows={16}
          styles={mono}
          {...form.getInputProps(f)}
          error={multiline(form.errors[f])}
          validationError={multiline(form.errors[f]) ?? "not valid JSON"}
        />
      ))}
      <Stack gap={4}>
        <Text size="sm" fw={500} id="entry-split-label">
          Split
        </Text>
        <SegmentedControl aria-labelledby="entry-split-label" data={["TRAIN", "TEST"]} w={200} {...form.getInputProps("split")} />
        {form.errors.split ? (
          <Text size="sm" c="red">
            {form.errors.split as string}
          </Text>
        ) : null}
      </Stack>
      {form.errors.form ? (
        <Alert color="red" role="alert" title="Not saved">
          <span style={{ whiteSpace: "pre-wrap" }}>{form.errors.form as string}</span>
        </Alert>
      ) : null}
      {/* Kept at the bottom of the drawer: a long conversation does not push Save out of reach. */}
      <Group
        justify="flex-end"
        py="xs"
        style={{
          position: "sticky",
          bottom: 0,
          background: "var(--mantine-color-body)",
          borderTop: "1px solid var(--mantine-color-default-border)",
          zIndex: 1,
        }}
      >
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" loading={update.isPending || add.isPending}>
          {entry ? "Save entry" : "Add entry"}
        </Button>
      </Group>
    </Stack>
  );
}
