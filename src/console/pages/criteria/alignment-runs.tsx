import { Group, Select, Stack, Text } from "@mantine/core";
import { When } from "../../components/when";
import { useCallback, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";

import { CompareVersions } from "./compare-versions";
import { Disagreements } from "./disagreements";
import { type CriterionDetail, useAlignmentRows, useAlignmentRuns, useRefreshAfterRun } from "./queries";
import { RunControl } from "./run-control";
import { StatsView } from "./stats-view";

/** Runs of the criterion's versions against the labels: one run's statistics and disagreements, and the versions compared. */
export function AlignmentRunsTab({ criterion }: { criterion: CriterionDetail }) {
  const runs = useAlignmentRuns(criterion.id);
  const rows = useAlignmentRows(criterion.id);
  const refresh = useRefreshAfterRun(criterion.id);
  const [shown, setShown] = useState<string | null>(null);
  const list = runs.data ?? [];
  const current = list.find((r) => String(r.version) === shown) ?? list.at(-1);
  const onFinished = useCallback(
    (version: number) => {
      refresh();
      setShown(String(version));
    },
    [refresh],
  );
  return (
    <Stack>
      <RunControl criterion={criterion} onFinished={onFinished} />
      <ErrorAlert error={runs.error ?? rows.error} />
      {runs.data && list.length === 0 ? (
        <Text c="dimmed" size="sm">
          No run yet. Label some rows, then run a version against your labels.
        </Text>
      ) : null}
      {current ? (
        <>
          <Group align="flex-end">
            <Select
              label="Results of"
              w={180}
              data={list.map((r) => ({ value: String(r.version), label: `v${r.version}` }))}
              value={String(current.version)}
              onChange={setShown}
              allowDeselect={false}
            />
            <Text size="sm" c="dimmed" pb={8}>
              run <When value={current.createdAt} />
            </Text>
          </Group>
          <StatsView stats={current} />
          <Disagreements rows={rows.data ?? []} version={current.version} />
          <CompareVersions runs={list} rows={rows.data ?? []} />
        </>
      ) : null}
    </Stack>
  );
}
