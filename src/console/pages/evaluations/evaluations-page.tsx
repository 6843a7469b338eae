import { Badge, Button, Group, Table } from "@mantine/core";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { DataTable, EmptyCard } from "../../components/data-table";
import { PageHeader } from "../../components/page-header";
import { formatRelative } from "../../lib/format";
import { CreateEvaluation } from "./create-evaluation";
import { DATASET_MODEL, useDatasetsList, useEvaluationsList } from "./queries";
import type { EvaluationsSearch } from "./search";
import { EvaluationProgress, EvaluationStatus } from "./status";

export function EvaluationsPage() {
  const search = useSearch({ from: "/evaluations" }) as EvaluationsSearch;
  const navigate = useNavigate();
  const list = useEvaluationsList();
  const datasets = useDatasetsList();
  const datasetNames = new Map((datasets.data ?? []).map((d) => [d.id, d.name]));
  // The form is open while the URL says ?new=1 (a link from a dataset or a model opens it filled in).
  const setCreating = (open: boolean) => void navigate({ to: "/evaluations", search: open ? { new: true } : {}, replace: !open });
  return (
    <>
      <PageHeader
        mutates="member"
        title="Evaluations"
        description="Models answer a dataset's TEST entries and criteria judge every answer: which model is better, and where."
        actions={<Button onClick={() => setCreating(true)}>New evaluation</Button>}
      />
      <DataTable
        label="Evaluations"
        striped
        highlightOnHover
        minWidth={760}
        columns={["Evaluation", "Dataset", "Models", "Status", "Progress", "Created"]}
        query={list}
        emptyState={
          <EmptyCard title="No evaluations yet">
            You need a dataset with TEST entries and at least one criterion. Compare a fine-tune with its base model, or with the dataset's own answers.
          </EmptyCard>
        }
        row={(e) => (
          <Table.Tr key={e.id} data-testid="evaluation-row" data-evaluation-id={e.id}>
            <Table.Td maw={280}>
              <Link to="/evaluations/$evaluationId" params={{ evaluationId: e.id }} data-testid="evaluation-name">
                {e.name}
              </Link>
            </Table.Td>
            <Table.Td>{e.datasetId ? (datasetNames.get(e.datasetId) ?? e.datasetId) : "deleted"}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {e.models.map((m) => (
                  <Badge key={m} variant="outline" color="gray" tt="none">
                    {m === DATASET_MODEL ? "dataset (reference)" : m}
                  </Badge>
                ))}
              </Group>
            </Table.Td>
            <Table.Td>
              <EvaluationStatus status={e.status} />
            </Table.Td>
            <Table.Td>
              <EvaluationProgress evaluation={e} />
            </Table.Td>
            <Table.Td>{formatRelative(e.createdAt)}</Table.Td>
          </Table.Tr>
        )}
      />
      {search.new ? <CreateEvaluation onClose={() => setCreating(false)} initial={{ model: search.model, datasetId: search.datasetId }} /> : null}
    </>
  );
}
