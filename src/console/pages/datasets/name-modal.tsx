import { Button, Modal, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { ErrorAlert } from "../../components/error-alert";
import { type Dataset, useCreateDataset, useRenameDataset } from "./queries";

/** Create (no dataset) or rename (a dataset): one name field, checked as the API checks it. */
export function NameModal({ dataset, onClose }: { dataset: Dataset | null; onClose(): void }) {
  const create = useCreateDataset();
  const rename = useRenameDataset();
  const form = useForm({
    initialValues: { name: dataset?.name ?? "" },
    validate: { name: (v) => (v.trim() ? (v.trim().length > 256 ? "The name must be at most 256 characters" : null) : "The name must not be empty") },
  });
  const done = (message: string) => {
    notifications.show({ message });
    onClose();
  };
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ "aria-label": "Close" }} title={dataset ? `Rename ${dataset.name}` : "New dataset"}>
      <form
        onSubmit={form.onSubmit(({ name }) => {
          if (dataset) rename.mutate({ id: dataset.id, name }, { onSuccess: (d) => done(`Renamed to ${d.name}`) });
          else create.mutate({ name }, { onSuccess: (d) => done(`Created ${d.name}`) });
        })}
      >
        <Stack>
          <TextInput label="Dataset name" required data-autofocus {...form.getInputProps("name")} />
          <ErrorAlert error={create.error ?? rename.error} />
          <Button type="submit" loading={create.isPending || rename.isPending}>
            {dataset ? "Rename" : "Create dataset"}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}
