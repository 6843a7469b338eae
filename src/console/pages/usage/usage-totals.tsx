import { Anchor, Group, Paper, SimpleGrid, Text, Title } from "@mantine/core";
import { Hint } from "../../components/hint";
import { Link } from "@tanstack/react-router";
import { formatCost, formatMs, formatNumber, plural } from "../../lib/format";
import type { Figures } from "./usage-groups";

function Stat({ label, value, testId, exact, hint }: { label: string; value: string; testId: string; exact: number | null; hint?: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700} style={{ whiteSpace: "nowrap" }}>
        {label}
      </Text>
      <Text fz={24} fw={700} data-testid={testId} data-value={exact ?? ""} title={exact == null ? undefined : String(exact)}>
        {value}
      </Text>
      <Hint>{hint}</Hint>
    </Paper>
  );
}

/** The application's figures over the range (Hone's own calls are not in them). */
export function Totals({ totals }: { totals: Figures }) {
  const rate = totals.requests ? totals.errors / totals.requests : null;
  return (
    <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} spacing="sm">
      <Stat label="Requests" testId="total-requests" value={formatNumber(totals.requests)} exact={totals.requests} />
      <Stat label="Input tokens" testId="total-input-tokens" value={formatNumber(totals.inputTokens)} exact={totals.inputTokens} />
      <Stat label="Output tokens" testId="total-output-tokens" value={formatNumber(totals.outputTokens)} exact={totals.outputTokens} />
      <Stat
        label="Cost"
        testId="total-cost"
        value={formatCost(totals.costUsd)}
        exact={totals.costUsd}
        hint={totals.unpriced ? `${plural(totals.unpriced, "call")} without a price` : undefined}
      />
      <Stat
        label="Error rate"
        testId="total-error-rate"
        value={rate == null ? "–" : `${(rate * 100).toFixed(1)}%`}
        exact={rate}
        hint={`${plural(totals.errors, "error")}${totals.refused ? `, ${totals.refused} of them refused by Hone` : ""}`}
      />
      <Stat label="p50 latency" testId="total-p50" value={formatMs(totals.p50Ms)} exact={totals.p50Ms} />
      <Stat label="p95 latency" testId="total-p95" value={formatMs(totals.p95Ms)} exact={totals.p95Ms} />
    </SimpleGrid>
  );
}

/** Hone's own calls over the range (judges, evaluations, alignment, relabelling, the playground), apart. */
export function OwnCallsCard({ totals }: { totals: Figures }) {
  return (
    <Paper withBorder radius="md" p="md" data-testid="own-calls" role="region" aria-labelledby="own-calls-title">
      <Group justify="space-between" align="flex-start" gap="xs">
        <div>
          <Title order={4} id="own-calls-title">
            Hone's own calls
          </Title>
          <Text size="xs" c="dimmed">
            Judges, evaluations, alignment runs, relabelling and the playground. Not in the figures above (your application's calls).
          </Text>
        </div>
        <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/logs" search={{ internal: 1, source: "internal" }} />}>
          See them in the logs
        </Anchor>
      </Group>
      <Group gap="xl" mt="sm">
        <OwnFigure label="Requests" testId="own-requests" exact={totals.requests} value={formatNumber(totals.requests)} />
        <OwnFigure label="Cost" testId="own-cost" exact={totals.costUsd} value={formatCost(totals.costUsd)} title={String(totals.costUsd)} />
        <OwnFigure
          label="Tokens"
          testId="own-tokens"
          exact={totals.inputTokens + totals.outputTokens}
          value={formatNumber(totals.inputTokens + totals.outputTokens)}
        />
      </Group>
    </Paper>
  );
}

/** One of Hone's own figures: its name, and the value (exact in data-value). */
function OwnFigure({ label, testId, exact, value, title }: { label: string; testId: string; exact: number; value: string; title?: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz={20} fw={700} data-testid={testId} data-value={exact} title={title}>
        {value}
      </Text>
    </div>
  );
}
