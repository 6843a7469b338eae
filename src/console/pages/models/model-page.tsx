import { Alert, Button, Code, Group, Paper, SimpleGrid, Stack, Tabs, Text, Timeline } from "@mantine/core";
import { modals } from "@mantine/modals";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { CopyButton } from "../../components/copy-button";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatNumber, formatTime } from "../../lib/format";
import { errorMessageOf, useTRPC } from "../../lib/trpc";
import { curlSnippet, gatewayBaseUrl, openaiSnippet, openpipeSnippet } from "../settings/snippets";
import { ACTIVE, ModelStatus } from "./models-page";

const STEPS = ["PENDING", "QUEUED", "TRAINING", "DEPLOYED"] as const;
const STEP_LABELS: Record<string, string> = {
  PENDING: "Uploading the training file",
  QUEUED: "Queued at the backend",
  TRAINING: "Training",
  DEPLOYED: "Deployed",
  ERROR: "Failed",
};

function snippets(slug: string) {
  const base = gatewayBaseUrl();
  return { curl: curlSnippet(base, `hone:${slug}`), openai: openaiSnippet(base, `hone:${slug}`), openpipe: openpipeSnippet(base, `openpipe:${slug}`) };
}

export function ModelPage() {
  const { slug } = useParams({ from: "/models/$slug" });
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const model = useQuery({
    ...trpc.models.get.queryOptions({ slug }),
    // Follows the fine-tune until it ends, without a reload.
    refetchInterval: (q) => (q.state.data && ACTIVE.has(q.state.data.status) ? 1500 : false),
  });
  const dataset = useQuery({ ...trpc.datasets.get.queryOptions({ datasetId: model.data?.datasetId ?? "" }), enabled: Boolean(model.data?.datasetId) });
  const remove = useMutation(
    trpc.models.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
        void navigate({ to: "/models" });
      },
    }),
  );
  if (model.error) return <ErrorAlert error={model.error} title="Model not found" />;
  const m = model.data;
  if (!m) return null;
  const failed = m.status === "ERROR";
  const code = snippets(m.slug);
  return (
    <>
      <PageHeader
        title={m.slug}
        description={
          <span>
            Fine-tune of <code>{m.baseModel}</code> on {m.backend} · created {formatTime(m.createdAt)} · <Link to="/models">all models</Link>
          </span>
        }
        actions={
          <Button
            color="red"
            variant="light"
            onClick={() =>
              modals.openConfirmModal({
                title: `Delete ${m.slug}?`,
                children: (
                  <Text size="sm">
                    hone:{m.slug} stops answering at once{ACTIVE.has(m.status) ? " and its training job is cancelled" : ""}. Its dataset is kept.
                  </Text>
                ),
                labels: { confirm: "Delete model", cancel: "Cancel" },
                confirmProps: { color: "red" },
                onConfirm: () => remove.mutate({ slug: m.slug }),
              })
            }
          >
            {ACTIVE.has(m.status) ? "Cancel and delete" : "Delete"}
          </Button>
        }
      />
      {remove.error ? <Alert color="red">{errorMessageOf(remove.error)}</Alert> : null}
      <Paper withBorder p="md" radius="md" mb="md">
        <Group justify="space-between" mb="md">
          <Group gap="xs">
            <Text fw={600}>Status</Text>
            <ModelStatus status={m.status} />
          </Group>
          <Text size="xs" c="dimmed">
            updated {formatTime(m.updatedAt)}
          </Text>
        </Group>
        <Timeline active={m.events.length - 1} bulletSize={18} lineWidth={2} color={failed ? "red" : undefined} aria-label="Fine-tune timeline">
          {m.events.map((e, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: events are an append-only list
            <Timeline.Item key={i} title={STEP_LABELS[e.status] ?? e.status} color={e.status === "ERROR" ? "red" : undefined} data-testid="model-event">
              <Text size="xs" c="dimmed">
                {formatTime(e.at)}
              </Text>
              {e.message ? (
                <Text size="sm" c="red">
                  {e.message}
                </Text>
              ) : null}
            </Timeline.Item>
          ))}
          {ACTIVE.has(m.status)
            ? STEPS.slice(STEPS.indexOf(m.status as (typeof STEPS)[number]) + 1).map((next) => (
                <Timeline.Item key={next} title={STEP_LABELS[next]} lineVariant="dashed">
                  <Text size="xs" c="dimmed">
                    next
                  </Text>
                </Timeline.Item>
              ))
            : null}
        </Timeline>
        {failed ? (
          <Alert color="red" title="Training failed" mt="md" role="alert" data-testid="model-error">
            {m.errorMessage ?? "The backend gave no reason."}
          </Alert>
        ) : null}
      </Paper>
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
            <Link to="/datasets/$datasetId" params={{ datasetId: m.datasetId }}>
              {dataset.data?.name ?? m.datasetId}
            </Link>
          ) : (
            <Text>deleted</Text>
          )}
        </Paper>
        <Paper withBorder p="sm">
          <Text size="xs" c="dimmed">
            Upstream model
          </Text>
          <Text size="sm" ff="monospace" style={{ wordBreak: "break-all" }}>
            {m.upstreamModelId ?? "–"}
          </Text>
        </Paper>
      </SimpleGrid>
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
                <Code block style={{ flex: 1, whiteSpace: "pre-wrap" }} data-testid={`snippet-${k}`}>
                  {code[k]}
                </Code>
                <CopyButton value={code[k]} label={`Copy the ${k} snippet`} />
              </Group>
            </Tabs.Panel>
          ))}
        </Tabs>
      </Stack>
    </>
  );
}
