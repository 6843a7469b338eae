import { Button, Modal, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { ErrorAlert } from "../../components/error-alert";
import { plural } from "../../lib/format";
import { useBulkSetTags } from "./queries";
import type { LogFilterInput } from "./search";

/** Sets or removes one tag on every log of a selection. */
export function TagModal({ mode, onClose, filters, count }: { mode: "set" | "remove" | null; onClose(): void; filters: LogFilterInput[]; count: string }) {
  const setTags = useBulkSetTags();
  const form = useForm({
    mode: "controlled",
    initialValues: { key: "", value: "" },
    validate: { key: (v) => (v.trim() ? null : "A tag key is required") },
  });
  const close = () => {
    onClose();
    setTags.reset();
  };
  const submit = form.onSubmit(({ key, value }) => {
    if (!mode) return;
    setTags.mutate(
      { filters, mode, key: key.trim(), value },
      {
        onSuccess: ({ updated }) => {
          notifications.show({ color: "teal", title: mode === "set" ? "Tag set" : "Tag removed", message: `${plural(updated, "log")} updated` });
          form.reset();
          close();
        },
      },
    );
  });
  return (
    <Modal opened={mode !== null} onClose={close} title={mode === "set" ? "Set a tag" : "Remove a tag"}>
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Text size="sm">{count} selected.</Text>
        <TextInput label="Tag key" required data-autofocus {...form.getInputProps("key")} />
        {mode === "set" ? <TextInput label="Tag value" {...form.getInputProps("value")} /> : null}
        <ErrorAlert error={setTags.error} title="Could not change the tags" />
        <Button type="submit" loading={setTags.isPending} disabled={!form.values.key.trim()}>
          {mode === "set" ? "Set tag" : "Remove tag"}
        </Button>
      </Stack>
    </Modal>
  );
}
