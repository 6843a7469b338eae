import { Button, Group, Modal, NumberInput, Paper, Stack, Text } from "@mantine/core";
import { FormActions } from "../../components/form-actions";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { formatNumber, plural } from "../../lib/format";
import { errorMessageOf } from "../../lib/trpc";
import { type EntryFilter, type EntrySelection, NO_SELECTION, useDeleteEntries, useResplit, useSetSplit } from "./queries";

const entries = (n: number) => plural(n, "entry", "entries");

type Props = {
  datasetId: string;
  datasetName: string;
  selection: EntrySelection;
  filter: EntryFilter;
  /** How many entries the filter matches (null while counting). */
  matching: number | null;
  filtered: boolean;
  onSelectionChange(s: EntrySelection): void;
};

/**
 * What the selected entries can be made to do, kept in view while the list scrolls: move to a
 * split, re-split at random by a ratio, delete. "Select all N matching" widens the selection from
 * the loaded rows to every entry the filter matches (the server works on the filter then).
 */
export function BulkBar({ datasetId, datasetName, selection, filter, matching, filtered, onSelectionChange }: Props) {
  const count = selection.allMatching ? (matching ?? 0) : selection.ids.size;
  const [resplitting, setResplitting] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useDeleteEntries();
  const move = useSetSplit();
  const target = { datasetId, selection, filter };
  const onError = (err: unknown) => notifications.show({ color: "red", title: "Not done", message: errorMessageOf(err) });
  const done = (message: string) => {
    notifications.show({ message });
    onSelectionChange(NO_SELECTION);
  };
  const moveTo = (split: "TRAIN" | "TEST") => move.mutate({ ...target, split }, { onSuccess: (r) => done(`${entries(r.updated)} moved to ${split}`), onError });
  const busy = remove.isPending || move.isPending;
  return (
    <Paper
      withBorder
      p="xs"
      mb="sm"
      radius="md"
      data-testid="bulk-bar"
      role="region"
      aria-label="Selected entries"
      style={{ position: "sticky", top: "calc(var(--app-shell-header-height, 64px) + 4px)", zIndex: 5 }}
    >
      <Group gap="xs" wrap="wrap">
        <Text size="sm" fw={600} data-testid="selected-count" aria-live="polite">
          {selection.allMatching ? `All ${entries(count)} ${filtered ? "matching" : "of the dataset"} selected` : `${formatNumber(count)} selected`}
        </Text>
        {!selection.allMatching && matching !== null && matching > count ? (
          <Button size="xs" variant="light" onClick={() => onSelectionChange({ ids: new Set(), allMatching: true })}>
            Select all {formatNumber(matching)} {filtered ? "matching" : "entries"}
          </Button>
        ) : null}
        <Button size="xs" variant="default" onClick={() => moveTo("TRAIN")} disabled={busy}>
          Move to TRAIN
        </Button>
        <Button size="xs" variant="default" onClick={() => moveTo("TEST")} disabled={busy}>
          Move to TEST
        </Button>
        <Button size="xs" variant="default" onClick={() => setResplitting(true)} disabled={busy}>
          Re-split by ratio…
        </Button>
        <Button size="xs" color="red" variant="light" onClick={() => setDeleting(true)} loading={remove.isPending} disabled={busy}>
          Delete
        </Button>
        <Button size="xs" variant="subtle" onClick={() => onSelectionChange(NO_SELECTION)}>
          Clear selection
        </Button>
      </Group>
      <ConfirmDelete
        opened={deleting}
        title={`Delete ${entries(count)}?`}
        confirmLabel="Delete entries"
        onClose={() => setDeleting(false)}
        onConfirm={() =>
          remove.mutate(target, {
            onSuccess: (r) => {
              setDeleting(false);
              done(`${entries(r.deleted)} deleted`);
            },
          })
        }
        mutation={remove}
        errorTitle="Not done"
      >
        <Text size="sm">
          {selection.allMatching ? `Every entry ${filtered ? "matching the filters" : "of the dataset"}` : "The selected entries"} ({formatNumber(count)}) will
          be removed from {datasetName}. This cannot be undone.
        </Text>
      </ConfirmDelete>
      {resplitting ? <ResplitModal count={count} target={target} onClose={() => setResplitting(false)} onDone={() => onSelectionChange(NO_SELECTION)} /> : null}
    </Paper>
  );
}

/** A share of the selection to TEST, drawn at random by the server; the exact counts before and after. */
function ResplitModal({
  count,
  target,
  onClose,
  onDone,
}: {
  count: number;
  target: { datasetId: string; selection: EntrySelection; filter: EntryFilter };
  onClose(): void;
  onDone(): void;
}) {
  const resplit = useResplit();
  const form = useForm({
    initialValues: { percent: 20 as number | string },
    validate: { percent: (v) => (typeof v === "number" && v >= 0 && v <= 100 ? null : "A percentage from 0 to 100") },
  });
  const percent = typeof form.values.percent === "number" ? form.values.percent : 0;
  const test = Math.round(Number(((percent / 100) * count).toFixed(9)));
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ "aria-label": "Close" }} title="Re-split by ratio">
      <form
        onSubmit={form.onSubmit((v) =>
          resplit.mutate(
            { ...target, testRatio: Number(v.percent) / 100 },
            {
              onSuccess: (r) => {
                notifications.show({ message: `Re-split ${entries(r.matched)}: ${formatNumber(r.test)} TEST, ${formatNumber(r.train)} TRAIN` });
                onDone();
                onClose();
              },
            },
          ),
        )}
      >
        <Stack>
          <NumberInput label="Share to TEST (%)" min={0} max={100} step={5} suffix="%" data-autofocus {...form.getInputProps("percent")} />
          <Text size="sm" data-testid="resplit-preview">
            Of the {entries(count)} selected: {formatNumber(test)} to TEST, {formatNumber(count - test)} to TRAIN, picked at random.
          </Text>
          <FormActions label="Re-split" mutation={resplit} errorTitle="Not re-split" onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
