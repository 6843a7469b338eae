import { Button, Group, Loader, Tabs, Text, Title } from "@mantine/core";
import { When } from "../../components/when";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { plural } from "../../lib/format";
import { EntriesView } from "./entries-view";
import { HeadToHead } from "./head-to-head";
import { EvaluationLogsLink } from "./logs-link";
import { ACTIVE, useCancelEvaluation, useCriterionNames, useDatasetsList, useEvaluation } from "./queries";
import type { EvaluationSearch } from "./search";
import { EvaluationProgress, EvaluationStatus } from "./status";
import { SummaryTable } from "./summary-table";

export function EvaluationPage() {
  const { evaluationId } = useParams({ from: "/evaluations/$evaluationId" });
  const search = useSearch({ from: "/evaluations/$evaluationId" }) as EvaluationSearch;
  const navigate = useNavigate();
  const detail = useEvaluation(evaluationId);
  const datasets = useDatasetsList();
  const names = useCriterionNames();
  const cancel = useCancelEvaluation(evaluationId);
  const [cancelling, setCancelling] = useState(false);
  const setSearch = (patch: Partial<EvaluationSearch>) =>
    void navigate({ to: "/evaluations/$evaluationId", params: { evaluationId }, search: (old) => ({ ...(old as EvaluationSearch), ...patch }), replace: true });
  if (detail.error) return <ErrorAlert error={detail.error} title="Evaluation not found" />;
  const d = detail.data;
  if (!d) return <Loader aria-label="Loading evaluation" />;
  const dataset = datasets.data?.find((x) => x.id === d.datasetId);
  const a = search.a && d.models.includes(search.a) ? search.a : d.models[0]!;
  const b = search.b && d.models.includes(search.b) ? search.b : (d.models[1] ?? d.models[0]!);
  return (
    <>
      <PageHeader
        mutates="member"
        title={d.name}
        description={
          <span>
            Evaluation of{" "}
            {dataset ? (
              <Link to="/datasets/$datasetId" params={{ datasetId: dataset.id }}>
                {dataset.name}
              </Link>
            ) : (
              "a deleted dataset"
            )}{" "}
            · {plural(d.models.length, "model")} · {plural(d.criteria.length, "criterion", "criteria")} · started <When value={d.createdAt} /> ·{" "}
            <Link to="/evaluations">all evaluations</Link>
          </span>
        }
        actions={
          ACTIVE.has(d.status) ? (
            <Button color="red" variant="light" onClick={() => setCancelling(true)}>
              Cancel
            </Button>
          ) : null
        }
      />
      <Group mb="md">
        <EvaluationStatus status={d.status} />
        <EvaluationProgress evaluation={d} />
        <EvaluationLogsLink evaluationId={d.id}>Its calls in the logs</EvaluationLogsLink>
        {d.errorMessage ? (
          <Text c="red" size="sm">
            {d.errorMessage}
          </Text>
        ) : null}
      </Group>
      <ConfirmDelete
        opened={cancelling}
        title="Cancel this evaluation?"
        confirmLabel="Cancel evaluation"
        cancelLabel="Keep running"
        onClose={() => setCancelling(false)}
        onConfirm={() => cancel.mutate({ id: evaluationId }, { onSuccess: () => setCancelling(false) })}
        mutation={cancel}
        errorTitle="Not cancelled"
      >
        <Text size="sm">Answers and verdicts so far are kept; nothing more is asked of the models or judges.</Text>
      </ConfirmDelete>
      <Tabs
        value={search.tab ?? "summary"}
        onChange={(v) => setSearch({ tab: v === "summary" ? undefined : (v as EvaluationSearch["tab"]) })}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="summary">Summary</Tabs.Tab>
          <Tabs.Tab value="entries">Entries side by side</Tabs.Tab>
          <Tabs.Tab value="h2h" disabled={d.models.length < 2}>
            Head to head
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="summary">
          <Title order={3} size="h4" mb="xs">
            Per model and criterion
          </Title>
          <SummaryTable detail={d} names={names} />
        </Tabs.Panel>
        <Tabs.Panel value="entries">
          <EntriesView detail={d} names={names} differ={search.differ ?? false} setDiffer={(v) => setSearch({ differ: v || undefined })} />
        </Tabs.Panel>
        <Tabs.Panel value="h2h">
          <HeadToHead detail={d} names={names} a={a} b={b} setPair={(na, nb) => setSearch({ a: na, b: nb })} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
