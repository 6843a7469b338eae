import { Alert, Badge, Button, Code, Group, Stack, Table, Text, TextInput } from "@mantine/core";
import { When } from "../../components/when";
import { useEffect, useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { DataTable } from "../../components/data-table";
import { ErrorAlert } from "../../components/error-alert";
import { formatTime } from "../../lib/format";
import { CopyTextButton } from "../settings/copy-text-button";
import { type Delivery, useDeleteWebhook, useDeliveries, useSetWebhook, useTestWebhook, useWebhook } from "./queries";

const STATUS_COLOR = { DELIVERED: "green", PENDING: "yellow", FAILED: "red" } as const;

function summary(d: Delivery): string {
  const data = (d.payload as { data?: Record<string, unknown> }).data ?? {};
  if (d.event === "budget.threshold") return `${data.threshold}% of ${data.budget === "costPerDayUsd" ? "a daily" : "a monthly"} budget ($${data.limitUsd})`;
  if (d.event === "key.expiring") return `key ${data.name ?? data.prefix} expires ${formatTime(String(data.expiresAt))}`;
  if (d.event === "evaluation.pass_rate_low") {
    return `${data.route ? `route ${data.route}` : data.model}: ${Math.round(Number(data.passRate) * 1000) / 10}% passed of ${data.judged} judged (alert below ${Math.round(Number(data.alertBelow) * 1000) / 10}%)`;
  }
  return "test event";
}

/** Where alerts go (budget thresholds, keys near expiry, falling pass rates), the signing secret, and what was delivered. */
export function WebhookSection() {
  const webhook = useWebhook();
  const deliveries = useDeliveries();
  const save = useSetWebhook();
  const test = useTestWebhook();
  const [removing, setRemoving] = useState(false);
  const remove = useDeleteWebhook(() => setRemoving(false));
  const [url, setUrl] = useState("");
  const current = webhook.data;
  useEffect(() => setUrl(current?.url ?? ""), [current?.url]);
  const secret = save.data?.secret ?? null;
  return (
    <Stack>
      <Text size="sm" c="dimmed" maw={760}>
        Hone posts a signed JSON event when a budget passes 50%, 80% and 100% in its window, and when a key is a week from its expiry. Each request carries{" "}
        <Code>Hone-Signature: t=…,v1=…</Code>: the HMAC-SHA256 of <Code>{"<t>.<body>"}</Code> under the secret below. Failed deliveries are retried with
        backoff.
      </Text>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ url: url.trim() });
        }}
      >
        <Group align="flex-end">
          <TextInput
            label="Webhook URL"
            placeholder="https://example.com/hooks/hone"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            style={{ flex: 1 }}
            maxLength={2048}
          />
          <Button type="submit" loading={save.isPending} disabled={!url.trim()}>
            {current ? "Save URL" : "Add webhook"}
          </Button>
          {current ? (
            <>
              <Button variant="default" onClick={() => save.mutate({ url: current.url, rotateSecret: true })}>
                Rotate secret
              </Button>
              <Button variant="default" loading={test.isPending} onClick={() => test.mutate()}>
                Send test event
              </Button>
              <Button variant="light" color="red" onClick={() => setRemoving(true)}>
                Remove
              </Button>
            </>
          ) : null}
        </Group>
      </form>
      <ErrorAlert error={save.error ?? test.error ?? webhook.error} title="The webhook was not saved" />
      {current ? (
        <Text size="sm">
          Signing secret ends in <Code>{current.secretHint}</Code>.
        </Text>
      ) : null}
      {secret ? (
        <Alert color="yellow" variant="light" title="Copy the signing secret now" data-testid="webhook-secret">
          <Group gap="xs" wrap="nowrap">
            <Code style={{ wordBreak: "break-all", flex: 1 }}>{secret}</Code>
            <CopyTextButton value={secret} label="Copy secret" />
          </Group>
          <Text size="xs" mt={4}>
            It is shown this once; rotate it to get a new one.
          </Text>
        </Alert>
      ) : null}
      <DataTable
        label="Webhook deliveries"
        testId="deliveries-table"
        striped
        minWidth={760}
        columns={["Sent", "Event", "What", "Status", "Attempts", "Last answer"]}
        query={deliveries}
        empty="Nothing delivered yet."
        row={(d) => (
          <Table.Tr key={d.id} data-delivery-id={d.id} data-status={d.status}>
            <Table.Td>
              <Text size="sm">
                <When value={d.createdAt} />
              </Text>
            </Table.Td>
            <Table.Td>
              <Code>{d.event}</Code>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{summary(d)}</Text>
            </Table.Td>
            <Table.Td>
              <Badge color={STATUS_COLOR[d.status]} variant="light">
                {d.status.toLowerCase()}
              </Badge>
            </Table.Td>
            <Table.Td>{d.attempts}</Table.Td>
            <Table.Td>
              <Text size="sm" c={d.lastError ? "red" : undefined} title={d.lastError ?? undefined}>
                {d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : ""} {d.lastError && d.status !== "DELIVERED" ? d.lastError.slice(0, 80) : ""}
              </Text>
            </Table.Td>
          </Table.Tr>
        )}
      />
      <ConfirmDelete
        opened={removing}
        title="Remove the webhook?"
        confirmLabel="Remove webhook"
        onClose={() => setRemoving(false)}
        onConfirm={() => remove.mutate()}
        mutation={remove}
      >
        <Text size="sm">No alert is sent until a webhook is added again; deliveries not yet made fail.</Text>
      </ConfirmDelete>
    </Stack>
  );
}
