import { Anchor, Button, Table, Text } from "@mantine/core";
import { When } from "../../components/when";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { DataTable, EmptyCard } from "../../components/data-table";
import { PageHeader } from "../../components/page-header";
import { formatNumber } from "../../lib/format";
import { CreateModel } from "./create-model";
import { ModelStatus } from "./model-status";
import { useDatasetChoices, useModels } from "./queries";

export function ModelsPage() {
  const search = useSearch({ from: "/models" });
  const navigate = useNavigate({ from: "/models" });
  const models = useModels();
  const datasets = useDatasetChoices();
  const names = new Map((datasets.data ?? []).map((d) => [d.id, d.name]));
  // The form is open while the URL says so: the dataset page's "Fine-tune" link opens it prefilled.
  const setCreating = (open: boolean) => void navigate({ search: open ? { new: 1 } : {}, replace: !open });
  return (
    <>
      <PageHeader
        mutates="member"
        title="Models"
        description="Fine-tunes of this project, trained on a dataset and served by the gateway as hone:<slug>."
        actions={<Button onClick={() => setCreating(true)}>New fine-tune</Button>}
      />
      <DataTable
        label="Models"
        striped
        highlightOnHover
        columns={[
          "Slug",
          "Status",
          "Base model",
          "Dataset",
          { label: "Training entries", ta: "right", visibleFrom: "md" },
          { label: "Created", visibleFrom: "lg" },
        ]}
        query={models}
        emptyState={
          <EmptyCard title="No fine-tunes yet">
            Fill a dataset (Datasets), store a provider key for the training backend (Settings), then start one with "New fine-tune".
          </EmptyCard>
        }
        row={(m) => (
          <Table.Tr key={m.id} data-testid={`model-row-${m.slug}`}>
            <Table.Td>
              <Anchor renderRoot={(props) => <Link {...props} to="/models/$slug" params={{ slug: m.slug }} />}>{m.slug}</Anchor>
            </Table.Td>
            <Table.Td>
              <ModelStatus status={m.status} />
            </Table.Td>
            <Table.Td>
              <Text size="sm" ff="monospace" style={{ overflowWrap: "anywhere" }}>
                {m.baseModel}
              </Text>
            </Table.Td>
            <Table.Td>
              {m.datasetId ? (
                <Anchor renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: m.datasetId! }} />}>
                  {names.get(m.datasetId) ?? m.datasetId}
                </Anchor>
              ) : (
                "deleted"
              )}
            </Table.Td>
            <Table.Td ta="right" visibleFrom="md">
              {formatNumber(m.trainingEntries)}
            </Table.Td>
            <Table.Td visibleFrom="lg">
              <When value={m.createdAt} />
            </Table.Td>
          </Table.Tr>
        )}
      />
      {search.new ? <CreateModel key={search.datasetId ?? ""} datasetId={search.datasetId} onClose={() => setCreating(false)} /> : null}
    </>
  );
}
