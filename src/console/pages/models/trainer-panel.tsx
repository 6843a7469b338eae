import { LineChart } from "@mantine/charts";
import { Alert, Badge, Button, Code, Group, List, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { CopyButton } from "../../components/copy-button";
import { formatBytes, formatTime } from "../../lib/format";
import { gatewayBaseUrl } from "../settings/snippets";
import { ACTIVE, type Model, type TrainingProgress, useModelServing, useTrainingEvents } from "./queries";

// A model of Hone's own trainers: who trains it, its figures as curves (learning rate, tokens per
// second, GPU memory; the losses are the training curve above), its weights to download, and
// whether a vLLM server serves it through the gateway.

const seconds = (s: number) => (s < 90 ? `${Math.round(s)} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`);

function Curve({
  label,
  points,
  pick,
  format,
}: {
  label: string;
  points: TrainingProgress[];
  pick(p: TrainingProgress): number | null;
  format(v: number): string;
}) {
  const data = points.filter((p) => pick(p) !== null).map((p) => ({ step: p.step, [label]: pick(p) }));
  if (!data.length) return null;
  return (
    <div data-testid={`curve-${label}`} data-points={data.length}>
      <Text size="xs" c="dimmed" mb={4}>
        {label}
      </Text>
      <LineChart
        h={140}
        data={data}
        dataKey="step"
        series={[{ name: label, color: "teal.6" }]}
        curveType="monotone"
        withDots={data.length <= 40}
        valueFormatter={format}
        tooltipAnimationDuration={0}
      />
    </div>
  );
}

/** Saves the weights' tar through the console's session (an adapter is tens of MB; the curl line streams any size). */
function DownloadButton({ slug }: { slug: string }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const download = async () => {
    setState({ busy: true, error: null });
    try {
      const res = await fetch(`/api/v1/models/${encodeURIComponent(slug)}/weights`, { headers: { "x-hone-console": "1" }, credentials: "same-origin" });
      if (!res.ok) throw new Error(((await res.json().catch(() => null)) as { message?: string } | null)?.message ?? `HTTP ${res.status}`);
      const url = URL.createObjectURL(await res.blob());
      const a = Object.assign(document.createElement("a"), { href: url, download: `${slug}.tar` });
      a.click();
      URL.revokeObjectURL(url);
      setState({ busy: false, error: null });
    } catch (e) {
      setState({ busy: false, error: e instanceof Error ? e.message : String(e) });
    }
  };
  return (
    <Stack gap={4}>
      <Button variant="default" size="xs" loading={state.busy} onClick={() => void download()} data-testid="download-weights">
        Download weights (.tar)
      </Button>
      {state.error ? (
        <Text size="xs" c="red" role="alert">
          {state.error}
        </Text>
      ) : null}
    </Stack>
  );
}

export function TrainerPanel({ model: m }: { model: Model }) {
  const active = ACTIVE.has(m.status);
  const events = useTrainingEvents(m.slug, m.backend === "trainer", active);
  const serving = useModelServing(m.slug, m.backend === "trainer");
  if (m.backend !== "trainer") return null;
  const points = events.data ?? [];
  const last = points.at(-1);
  const s = serving.data;
  const curl = `curl -sfo ${m.slug}.tar -C - ${gatewayBaseUrl()}/models/${m.slug}/weights -H "Authorization: Bearer $HONE_API_KEY"`;
  return (
    <Paper withBorder p="md" mb="md" data-testid="trainer-panel">
      <Group justify="space-between" mb={4}>
        <Title order={4}>Hone trainer</Title>
        {s?.trainedBy ? (
          <Text size="sm" data-testid="trained-by">
            {active ? "training on" : "trained on"} <Code>{s.trainedBy}</Code>
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            {active ? "waiting for a trainer (Settings → Trainers)" : ""}
          </Text>
        )}
      </Group>
      {last ? (
        <Text size="sm" mb="sm" data-testid="trainer-progress">
          Step {last.step} of {last.totalSteps}
          {active && last.etaSeconds !== null ? ` · about ${seconds(last.etaSeconds)} to go` : ""}
          {last.tokensPerSecond !== null ? ` · ${Math.round(last.tokensPerSecond).toLocaleString("en-US")} tokens/s` : ""}
          {last.gpuMemoryBytes !== null ? ` · ${formatBytes(last.gpuMemoryBytes)} GPU memory` : ""}
        </Text>
      ) : null}
      {points.length ? (
        <SimpleGrid cols={{ base: 1, sm: 3 }} mb="md">
          <Curve label="learning rate" points={points} pick={(p) => p.learningRate} format={(v) => v.toExponential(1)} />
          <Curve label="tokens per second" points={points} pick={(p) => p.tokensPerSecond} format={(v) => Math.round(v).toLocaleString("en-US")} />
          <Curve label="GPU memory" points={points} pick={(p) => p.gpuMemoryBytes} format={formatBytes} />
        </SimpleGrid>
      ) : null}
      {s?.weights ? (
        <Stack gap="xs" mb="md">
          <Group justify="space-between" align="flex-start">
            <Text size="sm" fw={600}>
              Weights: {s.weights === "adapter" ? "a LoRA adapter" : "a full model"}, {s.files.length} files,{" "}
              {formatBytes(s.files.reduce((n, f) => n + f.bytes, 0))} (each with its sha256)
            </Text>
            <DownloadButton slug={m.slug} />
          </Group>
          <Group align="flex-start" wrap="nowrap" gap="xs">
            <Code block style={{ flex: 1, whiteSpace: "pre-wrap", minWidth: 0 }} data-testid="weights-curl">
              {curl}
            </Code>
            <CopyButton value={curl} label="Copy the download command" />
          </Group>
        </Stack>
      ) : null}
      {m.status === "DEPLOYED" && s ? <Serving serving={s} baseModel={m.baseModel} /> : null}
    </Paper>
  );
}

function Serving({ serving: s, baseModel }: { serving: NonNullable<ReturnType<typeof useModelServing>["data"]>; baseModel: string }) {
  if (s.weights === "full") {
    return (
      <Alert color="gray" title="Served by you" data-testid="serving-status" data-served="false">
        A full fine-tune is a model of its own: serve it with <Code>vllm serve</Code> and add it as a custom provider.
      </Alert>
    );
  }
  return (
    <Stack gap={4} data-testid="serving-status" data-served={String(s.served)}>
      <Group gap="xs">
        <Text size="sm" fw={600}>
          Serving
        </Text>
        <Badge color={s.served ? "green" : "yellow"} variant="light">
          {s.served ? "answers through the gateway" : "not served"}
        </Badge>
      </Group>
      {s.servers.length ? (
        <List size="sm" spacing={2}>
          {s.servers.map((v) => (
            <List.Item key={v.provider}>
              <Code>{v.provider}</Code>
              {v.host ? ` on ${v.host}` : ""}:{" "}
              {v.reportedAt
                ? `${v.loaded ? "loaded" : "not loaded"}, reported ${formatTime(v.reportedAt)}${v.fresh ? "" : " (too long ago to route by)"}`
                : "its hone-trainer sync has not reported yet"}
              {v.error ? (
                <Text span c="red" size="sm">
                  {" "}
                  · {v.error}
                </Text>
              ) : null}
            </List.Item>
          ))}
        </List>
      ) : (
        <Text size="sm" c="dimmed">
          No vLLM server serves {baseModel} yet: run <Code>vllm serve {baseModel} --enable-lora</Code> with <Code>VLLM_ALLOW_RUNTIME_LORA_UPDATING=True</Code>,
          add it in Settings → Custom providers (kind vLLM, base model {baseModel}), and run <Code>hone-trainer sync</Code> beside it with a trainer token.
        </Text>
      )}
    </Stack>
  );
}
