import { LineChart } from "@mantine/charts";
import { Paper, Stack, Table, Text, Title } from "@mantine/core";
import { DataTable } from "../../components/data-table";
import { type Model, useModelUsage } from "./queries";

const loss = (v: number | null) => (v === null ? "–" : v.toFixed(3));

/** Training and validation loss over steps, from the backend's events, and the checkpoints it kept. */
export function TrainingCurve({ model }: { model: Model }) {
  const points = model.trainingCurve;
  if (!points.length && !model.checkpoints.length) return null;
  const hasValid = points.some((p) => p.validLoss !== null);
  return (
    <Paper withBorder p="md" mb="md" data-testid="training-curve" data-points={points.length}>
      <Title order={4} mb={4}>
        Training
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        Loss over {points.length} step{points.length === 1 ? "" : "s"}, as {model.backend} reported it while training
        {hasValid ? " (validation loss where it was measured)" : ""}.
      </Text>
      {points.length ? (
        <LineChart
          h={220}
          data={points.map((p) => ({ step: p.step, "training loss": p.trainLoss, "validation loss": p.validLoss }))}
          dataKey="step"
          series={[{ name: "training loss", color: "blue.6" }, ...(hasValid ? [{ name: "validation loss", color: "orange.6" }] : [])]}
          withLegend
          connectNulls
          curveType="monotone"
          withDots={points.length <= 40}
          valueFormatter={(v) => v.toFixed(3)}
          xAxisProps={{ label: { value: "step", position: "insideBottom", offset: -4 } }}
          tooltipAnimationDuration={0}
        />
      ) : null}
      {model.checkpoints.length ? (
        <Stack gap={4} mt="md">
          <Text size="sm" fw={600}>
            Checkpoints
          </Text>
          <DataTable
            label="Checkpoints"
            testId="checkpoints"
            columns={["Step", "Training loss", "Validation loss", "Model"]}
            rows={model.checkpoints}
            row={(c) => (
              <Table.Tr key={c.id}>
                <Table.Td>{c.step}</Table.Td>
                <Table.Td>{loss(c.trainLoss)}</Table.Td>
                <Table.Td>{loss(c.validLoss)}</Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {c.model ?? c.id}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
          />
        </Stack>
      ) : null}
    </Paper>
  );
}

/**
 * The pruning rules a fine-tune trained and serves with: the tokens they took out of its training
 * file, and out of the requests made to it over the last 30 days.
 */
export function PruningSummary({ model }: { model: Model }) {
  const usage = useModelUsage(model.slug, model.pruningRules.length > 0 && model.status === "DEPLOYED");
  if (!model.pruningRules.length) return null;
  const n = model.pruningRules.length;
  const u = usage.data;
  return (
    <Paper withBorder p="md" mb="md" data-testid="pruning-summary">
      <Title order={4} mb={4}>
        Pruning
      </Title>
      <Text size="sm">
        {n} pruning rule{n === 1 ? "" : "s"}
        {model.prunedTokens !== null ? `: ${model.prunedTokens.toLocaleString("en-US")} tokens removed from the training file` : ""}. Requests to this model
        have the same text removed before they reach {model.backend}.
      </Text>
      {u ? (
        <Text size="sm" mt={4} data-testid="served-pruned-tokens" data-value={u.prunedTokens}>
          Served: {u.requests.toLocaleString("en-US")} request{u.requests === 1 ? "" : "s"} in the last {u.days} days, {u.prunedTokens.toLocaleString("en-US")}{" "}
          prompt tokens pruned from them
          {u.inputTokens + u.prunedTokens > 0 ? ` (${Math.round((1000 * u.prunedTokens) / (u.inputTokens + u.prunedTokens)) / 10}% of their prompts)` : ""}.
        </Text>
      ) : null}
    </Paper>
  );
}
