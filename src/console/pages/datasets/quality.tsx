import { Alert, Badge, Button, Group, Modal, Paper, Progress, Select, Stack, Tabs, Text, TextInput } from "@mantine/core";
import { When } from "../../components/when";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { TextDiff } from "../../components/text-diff";
import { formatNumber } from "../../lib/format";
import { lastAssistant, messageText } from "../../lib/messages";
import { errorMessageOf } from "../../lib/trpc";
import { type Entry, type Task, useAcceptRelabel, useCriteria, useQualityTasks, useRevertEntry } from "./queries";

const ACTIVE = new Set(["QUEUED", "RUNNING"]);

function TaskLine({ task, names }: { task: Task; names: Map<string, string> }) {
  const { done, total } = task.progress;
  const what = task.kind === "judge" ? "Judging" : `Relabelling with ${task.model}`;
  return (
    <Paper withBorder p="xs" radius="md" data-testid="dataset-task" data-status={task.status}>
      <Group justify="space-between" mb={4}>
        <Text size="sm">
          {what} · {names.get(task.criterionId) ?? task.criterionId} v{task.criterionVersion}
        </Text>
        <Group gap="xs">
          <Badge variant="light" color={task.status === "DONE" ? "teal" : task.status === "ERROR" ? "red" : "yellow"}>
            {task.status}
          </Badge>
          <Text size="xs" c="dimmed">
            {formatNumber(done)} / {formatNumber(total)} · <When value={task.createdAt} />
          </Text>
        </Group>
      </Group>
      <Progress value={total ? (100 * done) / total : 100} animated={ACTIVE.has(task.status)} aria-label={`${what} progress`} />
      {task.errorMessage ? (
        <Text size="xs" c="red" mt={4}>
          {task.errorMessage}
        </Text>
      ) : null}
    </Paper>
  );
}

/** Judge the entries with a criterion, or relabel those it fails with a model; progress of recent tasks. */
export function QualityModal({ datasetId, tasks, onClose }: { datasetId: string; tasks: Task[]; onClose(): void }) {
  const criteria = useCriteria();
  const names = criteria.names;
  const [criterionId, setCriterionId] = useState<string | null>(null);
  const [model, setModel] = useState("gpt-4o-mini");
  const { judge, relabel } = useQualityTasks(datasetId);
  const onSuccess = () => notifications.show({ message: "Started; progress below" });
  const criterionSelect = (
    <Select
      label="Criterion"
      data={(criteria.data ?? []).map((c) => ({ value: c.id, label: `${c.name} (v${c.latestVersion})` }))}
      value={criterionId}
      onChange={setCriterionId}
      searchable
      required
    />
  );
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ "aria-label": "Close" }} title="Dataset quality" size="lg">
      <Tabs defaultValue="judge">
        <Tabs.List mb="md">
          <Tabs.Tab value="judge">Judge entries</Tabs.Tab>
          <Tabs.Tab value="relabel">Relabel failing entries</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="judge">
          <Stack>
            <Text size="sm" c="dimmed">
              The criterion's latest version judges every entry's last assistant turn; verdicts show on the entries and can be filtered on.
            </Text>
            {criterionSelect}
            <ErrorAlert error={judge.error} title="Not started" />
            <Button onClick={() => criterionId && judge.mutate({ datasetId, criterionId }, { onSuccess })} disabled={!criterionId} loading={judge.isPending}>
              Judge all entries
            </Button>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="relabel">
          <Stack>
            <Text size="sm" c="dimmed">
              Entries not judged yet are judged first; each entry the criterion fails gets a new answer from the model, which is judged again. You then review
              each change and accept or revert it.
            </Text>
            {criterionSelect}
            <TextInput label="Model that writes the new answers" value={model} onChange={(e) => setModel(e.currentTarget.value)} required />
            <ErrorAlert error={relabel.error} title="Not started" />
            <Button
              onClick={() => criterionId && relabel.mutate({ datasetId, criterionId, model }, { onSuccess })}
              disabled={!criterionId || !model.trim()}
              loading={relabel.isPending}
            >
              Relabel failing entries
            </Button>
          </Stack>
        </Tabs.Panel>
      </Tabs>
      <Stack mt="md" gap="xs">
        {tasks.map((t) => (
          <TaskLine key={t.id} task={t} names={names} />
        ))}
      </Stack>
    </Modal>
  );
}

/** A relabelled entry awaiting review: the old answer against the new one, accept or revert. */
export function RelabelReview({ entry, onDone }: { entry: Entry; onDone?(): void }) {
  const onError = (err: unknown) => notifications.show({ color: "red", title: "Not done", message: errorMessageOf(err) });
  const accept = useAcceptRelabel(entry.datasetId);
  const revert = useRevertEntry(entry.datasetId);
  const done = { onSuccess: () => onDone?.(), onError };
  const before = messageText(lastAssistant(entry.originalMessages));
  const after = messageText(lastAssistant(entry.messages));
  return (
    <Alert color="violet" variant="light" title={`Relabelled by ${entry.relabeledBy ?? "a model"}: review the new answer`} data-testid="relabel-review">
      <Stack gap="xs">
        <TextDiff before={before} after={after} label="Original answer against the new one" />
        <Group gap="xs">
          <Button size="xs" color="teal" onClick={() => accept.mutate({ entryId: entry.id }, done)} loading={accept.isPending}>
            Accept new answer
          </Button>
          <Button size="xs" variant="default" onClick={() => revert.mutate({ entryId: entry.id }, done)} loading={revert.isPending}>
            Revert to original
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
