import { ActionIcon, Button, Group, Modal, MultiSelect, NumberInput, Paper, SegmentedControl, Stack, Text, TextInput, Title } from "@mantine/core";
import { FormActions } from "../../components/form-actions";
import { focusFirstError } from "../../lib/focus-error";
import { useState, useRef } from "react";
import { type Route, type RouteInput, useCreateRoute, useCriterionChoices, useUpdateRoute } from "./queries";

// Each group and target being edited has a key of its own, so removing one keeps the others' inputs.
type TargetDraft = { key: string; model: string; weight: number; version: string; timeoutMs: number | "" };
type GroupDraft = { key: string; balance: "weighted" | "least-busy"; targets: TargetDraft[] };

let drafted = 0;
const newKey = () => String(++drafted);
const blankTarget = (weight = 100): TargetDraft => ({ key: newKey(), model: "", weight, version: "", timeoutMs: "" });
const blankGroup = (): GroupDraft => ({ key: newKey(), balance: "weighted", targets: [blankTarget()] });

/** The form's state from a stored route (or a new route's starting point). */
function initialGroups(route: Route | null): GroupDraft[] {
  if (!route) return [blankGroup()];
  return route.groups.map((g) => ({
    key: newKey(),
    balance: g.balance,
    targets: g.targets.map((t) => ({ key: newKey(), model: t.model, weight: t.weight, version: t.version ?? "", timeoutMs: t.timeoutMs ?? "" })),
  }));
}

/** What the API takes: empty fields left out (the server checks the rest and names what is wrong). */
function toInput(slug: string, groups: GroupDraft[], stickyTag: string, attempts: number | "", judge: { criteria: string[]; percent: number }): RouteInput {
  return {
    slug,
    groups: groups.map((g) => ({
      balance: g.balance,
      targets: g.targets.map((t) => ({
        model: t.model.trim(),
        weight: t.weight,
        ...(t.version.trim() ? { version: t.version.trim() } : {}),
        ...(t.timeoutMs !== "" ? { timeoutMs: t.timeoutMs } : {}),
      })),
    })),
    ...(stickyTag.trim() ? { stickyTag: stickyTag.trim() } : {}),
    ...(attempts !== "" ? { attempts } : {}),
    ...(judge.criteria.length ? { judge: { criteria: judge.criteria, sampleRate: judge.percent / 100 } } : {}),
  };
}

/** Creates a route, or replaces a route's whole configuration (what it had is kept for rollback). */
export function RouteFormModal({ editing, onClose, onSaved }: { editing: Route | null; onClose: () => void; onSaved: (r: Route) => void }) {
  const [slug, setSlug] = useState(editing?.slug ?? "");
  const [groups, setGroups] = useState<GroupDraft[]>(() => initialGroups(editing));
  const [stickyTag, setStickyTag] = useState(editing?.stickyTag ?? "");
  const [attempts, setAttempts] = useState<number | "">(editing?.attempts ?? "");
  const [judgeCriteria, setJudgeCriteria] = useState<string[]>(editing?.judge?.criteria ?? []);
  const [judgePercent, setJudgePercent] = useState<number>(editing?.judge ? Math.round(editing.judge.sampleRate * 1000) / 10 : 5);
  const criteria = useCriterionChoices();
  const create = useCreateRoute(onSaved);
  const update = useUpdateRoute(onSaved);
  const saving = editing ? update : create;
  const formRef = useRef<HTMLFormElement>(null);
  /** Groups whose weights were found not to sum to 100 when the form was sent (checked before sending). */
  const [badSums, setBadSums] = useState<Set<number>>(new Set());
  const sumOf = (g: GroupDraft) => g.targets.reduce((s, t) => s + (Number(t.weight) || 0), 0);

  const setGroup = (i: number, g: GroupDraft) => setGroups(groups.map((x, j) => (j === i ? g : x)));
  const setTarget = (i: number, k: number, t: Partial<TargetDraft>) =>
    setGroup(i, { ...groups[i]!, targets: groups[i]!.targets.map((x, j) => (j === k ? { ...x, ...t } : x)) });

  return (
    <Modal opened onClose={onClose} title={editing ? `Edit route ${editing.slug}` : "New route"} size="xl">
      <form
        ref={formRef}
        onSubmit={(e) => {
          e.preventDefault();
          // What can be checked here is, before anything is sent: the first problem is brought into view.
          const bad = new Set(groups.flatMap((g, i) => (g.balance === "weighted" && sumOf(g) !== 100 ? [i] : [])));
          setBadSums(bad);
          if (bad.size) return focusFirstError(formRef.current);
          saving.mutate(toInput(slug, groups, stickyTag, attempts, { criteria: judgeCriteria, percent: judgePercent }));
        }}
      >
        <Stack>
          <TextInput
            label="Slug"
            description={slug ? `Called as hone:${slug}` : "Clients call the route as hone:<slug>"}
            value={slug}
            onChange={(e) => setSlug(e.currentTarget.value)}
            disabled={!!editing}
            required
            data-autofocus
          />
          {groups.map((g, i) => {
            const sum = sumOf(g);
            const sumWrong = badSums.has(i) && sum !== 100;
            return (
              <Paper withBorder p="sm" key={g.key} data-testid={`route-group-${i}`}>
                <Stack gap="xs">
                  <Group justify="space-between">
                    <Title order={5}>{i === 0 ? "Group 1: tried first" : `Group ${i + 1}: when every target above failed`}</Title>
                    <Group gap="xs">
                      <SegmentedControl
                        size="xs"
                        value={g.balance}
                        onChange={(v) => setGroup(i, { ...g, balance: v as GroupDraft["balance"] })}
                        data={[
                          { value: "weighted", label: "By weight" },
                          { value: "least-busy", label: "Least busy" },
                        ]}
                        aria-label={`Balancing of group ${i + 1}`}
                      />
                      {groups.length > 1 ? (
                        <Button size="xs" variant="subtle" color="red" onClick={() => setGroups(groups.filter((_, j) => j !== i))}>
                          Remove group
                        </Button>
                      ) : null}
                    </Group>
                  </Group>
                  {g.targets.map((t, k) => (
                    <Group key={t.key} gap="xs" align="flex-end" wrap="nowrap">
                      <TextInput
                        label={k === 0 ? "Model" : undefined}
                        placeholder="openai:gpt-4o-mini, anthropic:…, hone:<fine-tune>"
                        value={t.model}
                        onChange={(e) => setTarget(i, k, { model: e.currentTarget.value })}
                        style={{ flex: 3 }}
                        aria-label={`Model of target ${k + 1} in group ${i + 1}`}
                        required
                      />
                      <NumberInput
                        label={k === 0 ? "Weight %" : undefined}
                        value={t.weight}
                        min={0}
                        max={100}
                        onChange={(v) => setTarget(i, k, { weight: Number(v) || 0 })}
                        error={sumWrong}
                        style={{ flex: 1 }}
                        aria-label={`Weight of target ${k + 1} in group ${i + 1}`}
                      />
                      <TextInput
                        label={k === 0 ? "Version" : undefined}
                        placeholder="v1"
                        value={t.version}
                        onChange={(e) => setTarget(i, k, { version: e.currentTarget.value })}
                        style={{ flex: 1 }}
                        aria-label={`Version of target ${k + 1} in group ${i + 1}`}
                      />
                      <NumberInput
                        label={k === 0 ? "Timeout ms" : undefined}
                        placeholder="default"
                        value={t.timeoutMs}
                        min={100}
                        onChange={(v) => setTarget(i, k, { timeoutMs: v === "" ? "" : Number(v) })}
                        style={{ flex: 1 }}
                        aria-label={`Timeout of target ${k + 1} in group ${i + 1}`}
                      />
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        disabled={g.targets.length === 1}
                        onClick={() => setGroup(i, { ...g, targets: g.targets.filter((_, j) => j !== k) })}
                        aria-label={`Remove target ${k + 1} of group ${i + 1}`}
                        mb={4}
                      >
                        ✕
                      </ActionIcon>
                    </Group>
                  ))}
                  <Group justify="space-between">
                    <Button size="xs" variant="default" onClick={() => setGroup(i, { ...g, targets: [...g.targets, blankTarget(0)] })}>
                      Add target
                    </Button>
                    <Text
                      size="xs"
                      c={sum === 100 ? "dimmed" : "red"}
                      fw={sumWrong ? 600 : undefined}
                      role={sumWrong ? "alert" : undefined}
                      data-testid={`route-group-sum-${i}`}
                    >
                      Weights sum to {sum}% {sum === 100 ? "" : `(must be 100: ${sum < 100 ? `add ${100 - sum}` : `take off ${sum - 100}`})`}
                    </Text>
                  </Group>
                </Stack>
              </Paper>
            );
          })}
          <Group>
            <Button variant="default" onClick={() => setGroups([...groups, blankGroup()])} disabled={groups.length >= 5}>
              Add fallback group
            </Button>
          </Group>
          <Group grow>
            <TextInput
              label="Sticky tag"
              description="Calls with the same value of this tag (e.g. user) keep the same target"
              value={stickyTag}
              onChange={(e) => setStickyTag(e.currentTarget.value)}
            />
            <NumberInput
              label="Attempts per target"
              description="Empty: the server's HONE_RETRY_ATTEMPTS"
              value={attempts}
              min={1}
              max={10}
              onChange={(v) => setAttempts(v === "" ? "" : Number(v))}
            />
          </Group>
          <Group grow align="flex-start">
            <MultiSelect
              label="Judge a sample with"
              description="Criteria that judge a sample of the answers (off the answer's path): each version's pass rate"
              placeholder={judgeCriteria.length ? undefined : "No judging"}
              data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
              value={judgeCriteria}
              onChange={setJudgeCriteria}
              maxValues={3}
              searchable
            />
            <NumberInput
              label="Sample %"
              description="Share of answers judged"
              value={judgePercent}
              min={0}
              max={100}
              decimalScale={1}
              disabled={!judgeCriteria.length}
              onChange={(v) => setJudgePercent(Number(v) || 0)}
            />
          </Group>
          <FormActions
            label={editing ? "Save" : "Create route"}
            mutation={saving}
            errorTitle={editing ? "The route was not saved" : "The route was not created"}
            onCancel={onClose}
          />
        </Stack>
      </form>
    </Modal>
  );
}
