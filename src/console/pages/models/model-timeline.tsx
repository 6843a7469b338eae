import { Table, Text, Timeline } from "@mantine/core";
import { When } from "../../components/when";

import { formatDuration } from "./durations";
import type { BaseModel, Model } from "./queries";
import { ACTIVE } from "./queries";

const STEPS = ["PENDING", "QUEUED", "TRAINING", "DEPLOYED"] as const;
export const STEP_LABELS: Record<string, string> = {
  PENDING: "Uploading the training file",
  QUEUED: "Queued at the backend",
  TRAINING: "Training",
  DEPLOYED: "Deployed",
  ERROR: "Failed",
};

type Event = Model["events"][number];
const time = (e: Event) => Date.parse(e.at);
/** A TRAINING event the worker did not see running (the job ran between two polls); it has a note. */
const unseen = (e: Event | undefined) => e?.status === "TRAINING" && Boolean(e.message);

/**
 * Each status the fine-tune reached, when, and how long after the one before; the steps still to
 * come, dashed; a job that trained between two polls is said to have. `now` ticks with the poll.
 */
export function ModelTimeline({ model, now }: { model: Model; now: number }) {
  const events = model.events;
  const last = events.at(-1);
  const active = ACTIVE.has(model.status);
  const failed = model.status === "ERROR";
  return (
    <>
      <Timeline active={events.length - 1} bulletSize={18} lineWidth={2} color={failed ? "red" : undefined} aria-label="Fine-tune timeline">
        {events.map((e, i) => {
          const next = events[i + 1];
          // How long each state lasted: until the next one was seen. A TRAINING the worker did not
          // see running has no time of its own: the QUEUED before it holds the training too.
          const lasted =
            next && !unseen(e)
              ? `lasted ${formatDuration(time(next) - time(e))}${unseen(next) || (e.status === "QUEUED" && next.status === "DEPLOYED") ? ", training included" : ""}`
              : null;
          const skipped = e.status === "DEPLOYED" && events[i - 1]?.status === "QUEUED";
          return (
            <Timeline.Item
              // biome-ignore lint/suspicious/noArrayIndexKey: events are an append-only list
              key={i}
              title={STEP_LABELS[e.status] ?? e.status}
              color={e.status === "ERROR" ? "red" : undefined}
              data-testid="model-event"
              data-status={e.status}
            >
              <Text size="xs" c="dimmed">
                <When value={e.at} />
                {lasted ? <span data-testid="event-duration"> · {lasted}</span> : null}
                {!next && active ? <span data-testid="event-duration"> · for {formatDuration(now - time(e))} so far</span> : null}
              </Text>
              {e.message ? (
                <Text size="sm" c={e.status === "ERROR" ? "red" : "dimmed"} fs={e.status === "ERROR" ? undefined : "italic"}>
                  {e.message}
                </Text>
              ) : null}
              {skipped ? (
                <Text size="sm" c="dimmed" fs="italic">
                  Training was not seen running: the job started and finished between two polls.
                </Text>
              ) : null}
            </Timeline.Item>
          );
        })}
        {active
          ? STEPS.slice(STEPS.indexOf(model.status as (typeof STEPS)[number]) + 1).map((next) => (
              <Timeline.Item key={next} title={STEP_LABELS[next]} lineVariant="dashed">
                <Text size="xs" c="dimmed">
                  next
                </Text>
              </Timeline.Item>
            ))
          : null}
      </Timeline>
      {events.length > 1 && last ? (
        <Text size="sm" mt="sm" data-testid="timeline-total">
          {active
            ? `Started ${formatDuration(now - time(events[0]!))} ago.`
            : `${failed ? "Failed" : "Deployed"} ${formatDuration(time(last) - time(events[0]!))} after it started.`}
        </Text>
      ) : null}
    </>
  );
}

/**
 * The hyperparameters the fine-tune was started with: those given, and the backend's default for
 * the others (as the catalogue states it).
 */
/** A setting's value in words: a list joined, an object (LoRA's) as name=value pairs, null as "none". */
function shown(v: unknown): string {
  if (v === null) return "none";
  if (Array.isArray(v)) return v.join(", ");
  if (typeof v === "object")
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}=${Array.isArray(x) ? x.join(",") : String(x)}`)
      .join(" ");
  return String(v);
}

export function Hyperparameters({ model, base }: { model: Model; base: BaseModel | undefined }) {
  const given = model.hyperparameters as Record<string, unknown>;
  const names = [...new Set([...(base?.hyperparameters.map((h) => h.name) ?? []), ...Object.keys(given)])];
  if (!names.length) return null;
  const defaults = new Map(base?.hyperparameters.map((h) => [h.name, h.default]) ?? []);
  return (
    <Table aria-label="Hyperparameters" verticalSpacing={4} data-testid="hyperparameters" withRowBorders={false}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Hyperparameter</Table.Th>
          <Table.Th>Value</Table.Th>
          <Table.Th>Set by</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {names.map((name) => {
          const set = name in given;
          return (
            <Table.Tr key={name} data-testid={`hyperparameter-${name}`}>
              <Table.Td ff="monospace">{name}</Table.Td>
              <Table.Td ff="monospace">{set ? shown(given[name]) : (defaults.get(name) ?? "–")}</Table.Td>
              <Table.Td>
                <Text size="sm" c={set ? undefined : "dimmed"}>
                  {/* Hone's trainers keep every setting as trained: given, or Hone's default filled in when the model was made. */}
                  {model.backend === "trainer" ? "as trained" : set ? "you" : `${model.backend}'s default`}
                </Text>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
