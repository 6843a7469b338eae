import { Badge, Button, Group, Paper, Table, Text } from "@mantine/core";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { ErrorAlert } from "../../components/error-alert";
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
      <ErrorAlert error={list.error} />
      {list.data && list.data.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>No evaluations yet</Text>
          <Text size="sm" c="dimmed">
            You need a dataset with TEST entries and at least one criterion. Compare a fine-tune with its base model, or with the dataset's own answers.
          </Text>
        </Paper>
      ) : null}
      {list.data?.length ? (
        <Table.ScrollContainer minWidth={760}>
          <Table striped highlightOnHover aria-label="Evaluations">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Evaluation</Table.Th>
                <Table.Th>Dataset</Table.Th>
                <Table.Th>Models</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Progress</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.map((e) => (
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
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {search.new ? <CreateEvaluation onClose={() => setCreating(false)} initial={{ model: search.model, datasetId: search.datasetId }} /> : null}
    </>
  );
}
