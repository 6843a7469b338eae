import { Alert, Button, Group, JsonInput, Modal, SegmentedControl, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useState } from "react";
import { errorMessageOf, type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Entry = RouterOutputs["datasets"]["listEntries"]["entries"][number];

const FIELDS = [
  { key: "messages", label: "Messages", hint: "system / user / assistant / tool messages; the last one is the assistant's output to learn", rows: 12 },
  { key: "tools", label: "Tools", hint: "the request's tools (function definitions), or null", rows: 4 },
  { key: "toolChoice", label: "Tool choice", hint: '"auto", "none", "required", {"type":"function",...} or null', rows: 2 },
  { key: "responseFormat", label: "Response format", hint: '{"type":"json_object"} or a json_schema, or null', rows: 2 },
  { key: "metadata", label: "Metadata", hint: "string values", rows: 2 },
] as const;
type FieldKey = (typeof FIELDS)[number]["key"];

const show = (v: unknown) => JSON.stringify(v ?? null, null, 2);
const NEW_ENTRY = {
  messages: [
    { role: "user", content: "" },
    { role: "assistant", content: "" },
  ],
};

/** Field-level errors from the API's issue paths (["messages", 2, "tool_calls", ...] -> Messages). */
function fieldErrorsOf(error: unknown): Partial<Record<FieldKey | "split" | "form", string>> {
  if (!(error instanceof TRPCClientError)) return { form: errorMessageOf(error) };
  const issues = ((error.data as { issues?: { message: string; path?: (string | number)[] }[] } | undefined)?.issues ?? []).filter((i) => i.path?.length);
  if (!issues.length) return { form: error.message };
  const out: Partial<Record<FieldKey | "split" | "form", string>> = {};
  const alias: Record<string, FieldKey> = { tool_choice: "toolChoice", response_format: "responseFormat" };
  for (const i of issues) {
    const head = String(i.path![0]);
    const key = (alias[head] ?? head) as FieldKey | "split";
    const where = i.path!.slice(1).join(".");
    const line = where ? `${where}: ${i.message}` : i.message;
    out[key] = out[key] ? `${out[key]}\n${line}` : line;
  }
  return out;
}

/** Edits one entry (or adds one, without `entry`) with the API's own validation, errors at their fields. */
export function EntryEditor({ datasetId, entry, onClose, onSaved }: { datasetId: string; entry: Entry | null; onClose(): void; onSaved(): void }) {
  const trpc = useTRPC();
  const [values, setValues] = useState<Record<FieldKey, string>>(() => ({
    messages: show(entry?.messages ?? NEW_ENTRY.messages),
    tools: show(entry?.tools),
    toolChoice: show(entry?.toolChoice),
    responseFormat: show(entry?.responseFormat),
    metadata: show(entry?.metadata ?? {}),
  }));
  const [split, setSplit] = useState<"TRAIN" | "TEST">(entry?.split ?? "TRAIN");
  const [errors, setErrors] = useState<Partial<Record<FieldKey | "split" | "form", string>>>({});
  const saved = () => {
    notifications.show({ message: entry ? "Entry saved" : "Entry added" });
    onSaved();
    onClose();
  };
  const update = useMutation(trpc.datasets.updateEntry.mutationOptions({ onSuccess: saved, onError: (e) => setErrors(fieldErrorsOf(e)) }));
  const add = useMutation(
    trpc.datasets.addEntries.mutationOptions({
      onSuccess: (r) => (r.errors.length ? setErrors({ form: r.errors.map((e) => e.message).join("\n") }) : saved()),
      onError: (e) => setErrors(fieldErrorsOf(e)),
    }),
  );
  const submit = () => {
    const parsed: Partial<Record<FieldKey, unknown>> = {};
    const local: Partial<Record<FieldKey, string>> = {};
    for (const f of FIELDS) {
      try {
        parsed[f.key] = JSON.parse(values[f.key] || "null");
      } catch (err) {
        local[f.key] = `not valid JSON: ${(err as Error).message}`;
      }
    }
    setErrors(local);
    if (Object.keys(local).length) return;
    if (entry) {
      update.mutate({
        datasetId,
        entryId: entry.id,
        messages: parsed.messages as unknown[],
        tools: parsed.tools as unknown[] | null,
        toolChoice: parsed.toolChoice,
        responseFormat: parsed.responseFormat,
        metadata: (parsed.metadata ?? {}) as Record<string, string>,
        split,
      });
    } else {
      add.mutate({
        datasetId,
        entries: [
          {
            messages: parsed.messages,
            tools: parsed.tools,
            tool_choice: parsed.toolChoice,
            response_format: parsed.responseFormat,
            metadata: (parsed.metadata ?? {}) as Record<string, string>,
            split,
          },
        ],
      });
    }
  };
  return (
    <Modal opened onClose={onClose} title={entry ? `Edit entry ${entry.id}` : "Add an entry"} size="xl">
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Text size="xs" c="dimmed">
          Each field is JSON in the OpenAI chat format. The server checks the entry exactly as the API does; its errors appear under the field they concern.
        </Text>
        {FIELDS.map((f) => (
          <JsonInput
            key={f.key}
            label={f.label}
            description={f.hint}
            value={values[f.key]}
            onChange={(v) => setValues((old) => ({ ...old, [f.key]: v }))}
            autosize
            minRows={f.rows}
            maxRows={24}
            error={errors[f.key] ? <span style={{ whiteSpace: "pre-wrap" }}>{errors[f.key]}</span> : undefined}
            styles={{ input: { fontFamily: "monospace", fontSize: 12 } }}
          />
        ))}
        <Stack gap={4}>
          <Text size="sm" fw={500} id="entry-split-label">
            Split
          </Text>
          <SegmentedControl
            aria-labelledby="entry-split-label"
            data={["TRAIN", "TEST"]}
            value={split}
            onChange={(v) => setSplit(v as "TRAIN" | "TEST")}
            w={200}
          />
        </Stack>
        {errors.form ? (
          <Alert color="red" role="alert" title="Not saved">
            <span style={{ whiteSpace: "pre-wrap" }}>{errors.form}</span>
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={update.isPending || add.isPending}>
            {entry ? "Save entry" : "Add entry"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
