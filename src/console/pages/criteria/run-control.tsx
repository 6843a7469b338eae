import { Alert, Button, Group, Paper, Progress, Select, Stack, Text } from "@mantine/core";
import { useEffect, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatNumber } from "../../lib/format";
import { type AlignmentTask, type CriterionDetail, isActiveTask, useAlignmentTasks, useStartAlignmentRun } from "./queries";

function TaskProgress({ task }: { task: AlignmentTask }) {
  const pct = task.progress.total ? (100 * task.progress.done) / task.progress.total : 0;
  return (
    <Stack gap={4} mt="sm" data-testid="alignment-progress">
      <Text size="sm">
        v{task.version}: {task.status === "QUEUED" ? "queued" : `${formatNumber(task.progress.done)} of ${formatNumber(task.progress.total)} rows judged`}
      </Text>
      <Progress value={pct} animated aria-label={`Alignment run of v${task.version}`} />
    </Stack>
  );
}

/** Starts a background run of a version and follows it with a progress bar until it ends. */
export function RunControl({ criterion, onFinished }: { criterion: CriterionDetail; onFinished(version: number): void }) {
  const [version, setVersion] = useState(String(criterion.latestVersion));
  const tasks = useAlignmentTasks(criterion.id);
  const start = useStartAlignmentRun(criterion.id);
  const active = tasks.data?.filter((t) => isActiveTask(t.status)) ?? [];
  const latest = tasks.data?.[0];
  // When a run ends, its statistics and verdicts are read again.
  const [seen, setSeen] = useState<string | null>(null);
  useEffect(() => {
    if (latest && !isActiveTask(latest.status) && latest.id !== seen) {
      if (seen !== null || latest.status === "DONE") onFinished(latest.version);
      setSeen(latest.id);
    }
  }, [latest, seen, onFinished]);
  return (
    <Paper withBorder p="md" radius="md">
      <Group align="flex-end">
        <Select
          label="Run version"
          w={180}
          data={criterion.versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }))}
          value={version}
          onChange={(v) => v && setVersion(v)}
          allowDeselect={false}
        />
        <Button onClick={() => start.mutate({ criterionId: criterion.id, version: Number(version) })} loading={start.isPending}>
          Run against my labels
        </Button>
        <Text size="xs" c="dimmed" pb={8} maw={420}>
          The judge sees every row of the set; runs in the background, so you can leave this page.
        </Text>
      </Group>
      <ErrorAlert error={start.error} title="Not started" />
      {active.map((t) => (
        <TaskProgress key={t.id} task={t} />
      ))}
      {latest && latest.status === "ERROR" ? (
        <Alert color="red" mt="sm" title={`The run of v${latest.version} failed`}>
          {latest.errorMessage}
        </Alert>
      ) : null}
    </Paper>
  );
}
