import { ActionIcon, Button, Group, Modal, Stack, Text, Textarea } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { useTRPC } from "../../lib/trpc";

/** A dataset's pruning rules: the text removed from its training prompts and from requests to the fine-tunes made from then on. */
export function PruningModal({ datasetId, onClose }: { datasetId: string; onClose(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const rules = useQuery(trpc.datasets.pruningRules.queryOptions({ datasetId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.datasets.pruningRules.queryKey({ datasetId }) });
  const create = useMutation(trpc.datasets.createPruningRule.mutationOptions({ onSuccess: () => refresh() }));
  const remove = useMutation(trpc.datasets.deletePruningRule.mutationOptions({ onSuccess: () => refresh() }));
  const [text, setText] = useState("");
  return (
    <Modal opened onClose={onClose} title="Pruning rules" size="lg">
      <Stack>
        <Text size="sm" c="dimmed">
          Text (a long system prompt every entry shares) removed from the prompts when training, and from every request to the fine-tunes created from this
          dataset from now on, before it reaches the backend.
        </Text>
        {(rules.data ?? []).map((r) => (
          <Group key={r.id} justify="space-between" wrap="nowrap" align="flex-start" data-testid="pruning-rule">
            <Text size="sm" lineClamp={3} style={{ whiteSpace: "pre-wrap" }}>
              {r.text}
            </Text>
            <ActionIcon variant="subtle" color="red" aria-label="Delete rule" onClick={() => remove.mutate({ id: r.id })}>
              ×
            </ActionIcon>
          </Group>
        ))}
        <Textarea label="Text to remove" autosize minRows={3} maxRows={10} value={text} onChange={(e) => setText(e.currentTarget.value)} />
        <ErrorAlert error={create.error ?? remove.error ?? rules.error} title="The rule was not saved" />
        <Group justify="flex-end">
          <Button disabled={!text} loading={create.isPending} onClick={() => create.mutate({ datasetId, text }, { onSuccess: () => setText("") })}>
            Add rule
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
