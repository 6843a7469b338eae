import { Alert, Anchor, Button, Code, Group, Paper, SimpleGrid, Stack, Tabs, Text } from "@mantine/core";
import { When } from "../../components/when";
import { useInterval } from "@mantine/hooks";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { MayButton } from "../../components/may-button";
import { CopyButton } from "../../components/copy-button";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatNumber } from "../../lib/format";
import { curlSnippet, gatewayBaseUrl, openaiSnippet, openpipeSnippet } from "../settings/snippets";
import { ModelStatus } from "./model-status";
import { PruningSummary, TrainingCurve } from "./training-curve";
import { TrainerPanel } from "./trainer-panel";
import { Hyperparameters, ModelTimeline } from "./model-timeline";
import { ACTIVE, type Model, useBaseModels, useDatasetOf, useDeleteModel, useModel, useRetryModel } from "./queries";

function snippets(slug: string) {
  const base = gatewayBaseUrl();
  return { curl: curlSnippet(base, `hone:${slug}`), openai: openaiSnippet(base, `hone:${slug}`), openpipe: openpipeSnippet(base, `openpipe:${slug}`) };
}

/** Now, every second while the fine-tune is on its way (the timeline's "so far"). */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now);
  const interval = useInterval(() => setNow(Date.now()), 1000);
  useEffect(() => {
    if (ticking) interval.start();
    else interval.stop();
    return interval.stop;
  }, [ticking, interval]);
  return now;
}

export function ModelPage() {
  const { slug } = useParams({ from: "/models/$slug" });
  const navigate = useNavigate();
  const model = useModel(slug);
  const dataset = useDatasetOf(model.data?.datasetId);
  const catalogue = useBaseModels();
  const remove = useDeleteModel();
  const [deleting, setDeleting] = useState(false);
  const now = useNow(Boolean(model.data && ACTIVE.has(model.data.status)));
  if (model.error) return <ErrorAlert error={model.error} title="Model not found" />;
  const m = model.data;
  if (!m) return null;
  const code = snippets(m.slug);
  return (
    <>
      <PageHeader
        wrap
        title={m.slug}
        description={
          <>
            Fine-tune of <code>{m.baseModel}</code> on {m.backend === "trainer" ? "Hone's trainers" : m.backend} · created <When value={m.createdAt} /> ·{" "}
            <Anchor component={Link} to="/models" size="sm" underline="always">
              all models
            </Anchor>
          </>
        }
        actions={<ModelActions model={m} onDelete={() => setDeleting(true)} />}
      />
      <ConfirmDelete
        opened={deleting}
        title={`Delete ${m.slug}?`}
        confirmLabel="Delete model"
        onClose={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ slug: m.slug }, { onSuccess: () => void navigate({ to: "/models" }) })}
        mutation={remove}
      >
        <Text size="sm">
          hone:{m.slug} stops answering at once{ACTIVE.has(m.status) ? " and its training job is cancelled" : ""}. Its dataset is kept.
        </Text>
      </ConfirmDelete>
      <Paper withBorder p="md" radius="md" mb="md">
        <Group justify="space-between" mb="md">
          <Group gap="xs">
            <Text fw={600}>Status</Text>
            <ModelStatus status={m.status} />
          </Group>
          <Text size="xs" c="dimmed">
            updated <When value={m.updatedAt} />
          </Text>
        </Group>
        <ModelTimeline model={m} now={now} />
        {m.status === "ERROR" ? <FailedModel model={m} /> : null}
      </Paper>
      <TrainingCurve model={m} />
      <TrainerPanel model={m} />
      <PruningSummary model={m} />
      <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md">
        <Paper withBorder p="sm">
          <Text size="xs" c="dimmed">
            Training entries
          </Text>
          <Text fw={600} data-testid="training-entries">
            {formatNumber(m.trainingEntries)}
          </Text>
        </Paper>
        <Paper withBorder p="sm">
          <Text size="xs" c="dimmed">
            Dataset
          </Text>
          {m.datasetId ? (
            <Anchor renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: m.datasetId! }} />}>
              {dataset.data?.name ?? m.datasetId}
            </Anchor>
          ) : (
            <Text>deleted</Text>
          )}
        </Paper>
        <Paper withBorder p="sm">
          <Text size="xs" c="dimmed">
            {m.backend === "trainer" ? "LoRA name in vLLM" : "Upstream model"}
          </Text>
          <Text size="sm" ff="monospace" style={{ wordBreak: "break-all" }}>
            {m.backend === "trainer" ? (m.status === "DEPLOYED" ? m.id : "–") : (m.upstreamModelId ?? "–")}
          </Text>
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="md" radius="md" mb="md">
        <Text fw={600} mb="xs">
          Hyperparameters
        </Text>
        <Hyperparameters model={m} base={catalogue.data?.find((b) => b.id === m.baseModel)} />
      </Paper>
      {m.status === "DEPLOYED" ? <CallIt code={code} /> : null}
    </>
  );
}

/** A failed model: the backend's reason, what to check by its kind, and Retry (once that is fixed). */
function FailedModel({ model: m }: { model: Model }) {
  const retry = useRetryModel();
  return (
    <Alert color="red" title="Training failed" mt="md" role="alert" data-testid="model-error" data-kind={m.failure?.kind}>
      <Text size="sm">{m.errorMessage ?? "The backend gave no reason."}</Text>
      {m.failure ? (
        <Text size="sm" mt="xs" data-testid="failure-hint">
          {m.failure.hint}
        </Text>
      ) : null}
      <Group mt="sm" gap="xs">
        <MayButton
          may="models.retry"
          size="xs"
          variant="light"
          color="red"
          loading={retry.isPending}
          onClick={() => retry.mutate({ slug: m.slug })}
          data-testid="retry-model"
        >
          Retry
        </MayButton>
        {retry.error ? (
          <Text size="xs" c="red" role="alert">
            {retry.error.message}
          </Text>
        ) : null}
      </Group>
    </Alert>
  );
}

/** How to call a deployed model: curl, the openai and the openpipe SDKs. */
function CallIt({ code }: { code: ReturnType<typeof snippets> }) {
  return (
    <Stack gap="xs">
      <Text fw={600}>Call it</Text>
      <Tabs defaultValue="curl">
        <Tabs.List>
          <Tabs.Tab value="curl">curl</Tabs.Tab>
          <Tabs.Tab value="openai">openai SDK</Tabs.Tab>
          <Tabs.Tab value="openpipe">openpipe SDK</Tabs.Tab>
        </Tabs.List>
        {(["curl", "openai", "openpipe"] as const).map((k) => (
          <Tabs.Panel key={k} value={k} pt="xs">
            <Group align="flex-start" wrap="nowrap" gap="xs">
              <Code block style={{ flex: 1, whiteSpace: "pre-wrap", minWidth: 0 }} data-testid={`snippet-${k}`}>
                {code[k]}
              </Code>
              <CopyButton value={code[k]} label={`Copy the ${k} snippet`} />
            </Group>
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}

/**
 * Where to go from a model: the playground with it chosen, a new evaluation of it on its dataset
 * (both once it answers), and delete.
 */
function ModelActions({ model: m, onDelete }: { model: Model; onDelete(): void }) {
  const deployed = m.status === "DEPLOYED";
  const why = deployed ? undefined : "Only a deployed model answers";
  const evaluate = { new: 1, model: `hone:${m.slug}`, ...(m.datasetId ? { datasetId: m.datasetId } : {}) };
  return (
    <>
      <Button
        variant="default"
        disabled={!deployed}
        title={why}
        renderRoot={(props) => <Link {...props} to="/playground" search={{ model: `hone:${m.slug}` } as never} />}
      >
        Open in playground
      </Button>
      <Button variant="default" disabled={!deployed} title={why} renderRoot={(props) => <Link {...props} to="/evaluations" search={evaluate as never} />}>
        Evaluate
      </Button>
      <MayButton may="models.delete" color="red" variant="light" onClick={onDelete}>
        {ACTIVE.has(m.status) ? "Cancel and delete" : "Delete"}
      </MayButton>
    </>
  );
}
