import { Alert, Badge, Button, Checkbox, Group, Paper, Progress, Stack, Table, Text } from "@mantine/core";
import { Link, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatCost } from "../../lib/format";
import { useCan } from "../../lib/session";
import { type RelabelOutput, useAcceptOutputs, useRejectOutputs, useRelabelOutputs, useRelabelRun } from "./queries";

const textOf = (m: Record<string, unknown> | null | undefined): string => {
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  return JSON.stringify(m.tool_calls ?? m.content ?? m);
};
const lastUser = (input: unknown[]) => textOf([...input].reverse().find((m) => (m as { role?: string }).role === "user") as Record<string, unknown>);

function Verdicts({ verdicts }: { verdicts: RelabelOutput["proposedVerdicts"] }) {
  return (
    <Group gap={4}>
      {verdicts.map((v) => (
        <Badge
          key={v.criterionId}
          size="xs"
          variant="light"
          color={v.judgement === "PASS" ? "teal" : v.judgement === "FAIL" ? "red" : "gray"}
          title={v.explanation ?? v.error ?? ""}
        >
          {v.judgement ?? "no verdict"}
        </Badge>
      ))}
    </Group>
  );
}

/** One relabel run: each entry's input, current and proposed output side by side with their verdicts; accept some or all, reject the rest. */
export function RelabelRunPage() {
  const { runId } = useParams({ from: "/relabel/$runId" });
  const run = useRelabelRun(runId);
  const r = run.data;
  const running = r?.status === "QUEUED" || r?.status === "RUNNING";
  const outputs = useRelabelOutputs(runId, running);
  const accept = useAcceptOutputs();
  const reject = useRejectOutputs();
  const canDecide = useCan("member");
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const rows = outputs.data?.outputs ?? [];
  const undecided = rows.filter((o) => o.decision === null && o.proposed);
  const toggle = (id: string) =>
    setPicked((p) => {
      const n = new Set(p);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const done = () => setPicked(new Set());
  return (
    <Stack>
      <PageHeader
        mb={0}
        title={r ? `Relabel run: ${r.name}` : "Relabel run"}
        description={
          r ? (
            <>
              {r.model} · {r.decisions.accepted} accepted · {r.decisions.rejected} rejected · {r.decisions.undecided} to decide · {formatCost(r.costUsd)} ·{" "}
              <Link to="/datasets/$datasetId" params={{ datasetId: r.datasetId }}>
                the dataset
              </Link>
            </>
          ) : null
        }
        mutates="member"
        actions={
          r ? (
            <>
              <Button
                variant="default"
                disabled={picked.size === 0}
                loading={accept.isPending && picked.size > 0}
                onClick={() => accept.mutate({ id: runId, entryIds: [...picked] }, { onSuccess: done })}
              >
                Accept selected ({picked.size})
              </Button>
              <Button
                disabled={undecided.length === 0}
                loading={accept.isPending && picked.size === 0}
                onClick={() => accept.mutate({ id: runId }, { onSuccess: done })}
              >
                Accept all
              </Button>
              <Button
                variant="light"
                color="red"
                disabled={undecided.length === 0}
                loading={reject.isPending}
                onClick={() => reject.mutate({ id: runId }, { onSuccess: done })}
              >
                Reject the rest
              </Button>
            </>
          ) : null
        }
      />
      <ErrorAlert error={run.error ?? outputs.error ?? accept.error ?? reject.error} title="The run could not be loaded or changed" />
      {r && running ? <Progress value={(100 * r.progress.done) / Math.max(1, r.progress.total)} aria-label="Run progress" /> : null}
      {r?.errorMessage ? (
        <Alert color="red" title="The run stopped">
          {r.errorMessage}
        </Alert>
      ) : null}
      <Paper withBorder>
        <Table aria-label="Outputs side by side" data-testid="relabel-outputs" verticalSpacing="xs" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40} />
              <Table.Th w="22%">Input</Table.Th>
              <Table.Th>Current output</Table.Th>
              <Table.Th>Proposed output</Table.Th>
              <Table.Th w={120}>Decision</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((o) => (
              <Table.Tr key={o.entryId} data-entry-id={o.entryId} data-question={lastUser(o.input)} data-decision={o.decision ?? "UNDECIDED"}>
                <Table.Td>
                  {o.decision === null && o.proposed && canDecide ? (
                    <Checkbox aria-label={`Select ${lastUser(o.input)}`} checked={picked.has(o.entryId)} onChange={() => toggle(o.entryId)} />
                  ) : null}
                </Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={4}>
                    {lastUser(o.input)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Stack gap={4}>
                    <Text size="sm" lineClamp={6} style={{ whiteSpace: "pre-wrap" }}>
                      {textOf(o.current)}
                    </Text>
                    <Verdicts verdicts={o.currentVerdicts} />
                  </Stack>
                </Table.Td>
                <Table.Td>
                  <Stack gap={4}>
                    {o.error ? (
                      <Text size="sm" c="red">
                        {o.error}
                      </Text>
                    ) : (
                      <Text size="sm" lineClamp={6} style={{ whiteSpace: "pre-wrap" }}>
                        {o.proposed ? textOf(o.proposed) : "…"}
                      </Text>
                    )}
                    <Verdicts verdicts={o.proposedVerdicts} />
                  </Stack>
                </Table.Td>
                <Table.Td>
                  {o.decision ? (
                    <Badge variant="light" color={o.decision === "ACCEPTED" ? "teal" : "gray"}>
                      {o.decision.toLowerCase()}
                    </Badge>
                  ) : o.stale ? (
                    <Text size="xs" c="orange">
                      edited since the run
                    </Text>
                  ) : (
                    <Text size="xs" c="dimmed">
                      to decide
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
      {outputs.data?.hasNextPage ? (
        <Text size="xs" c="dimmed">
          The first 200 entries are shown; Accept all and Reject the rest apply to every entry of the run.
        </Text>
      ) : null}
    </Stack>
  );
}
