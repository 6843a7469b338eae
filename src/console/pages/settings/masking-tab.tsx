import { Alert, Badge, Button, Code, Group, MultiSelect, Paper, Progress, Select, Stack, Table, Text, Textarea, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { ACTIONS, DataTable } from "../../components/data-table";
import { ErrorAlert } from "../../components/error-alert";
import { MayButton } from "../../components/may-button";
import { DeleteButton, RowActions } from "../../components/row-actions";
import { SectionIntro } from "../../components/section-intro";
import { When } from "../../components/when";
import { WithPlaceholders } from "../../components/placeholders";
import {
  type MaskingRule,
  type MaskingTest,
  useDeleteMaskingRule,
  useDeleteOwnRecognizer,
  useMaskedUsage,
  useMaskingKinds,
  useOwnRecognizers,
  useSetOwnRecognizer,
  useMaskingBackfills,
  useMaskingRules,
  useSetMaskingRule,
  useStartMaskingBackfill,
  useTryMasking,
} from "./queries";

// Settings -> Masking: the project's rule and those narrowing it for a key or a model, a box to try
// the recognizers on a pasted text, and masking what was stored before the rule.

const MODES = [
  { value: "off", label: "Off: stored as sent" },
  { value: "mask_stored", label: "Mask what is stored (the provider gets the call as sent)" },
  { value: "mask_upstream", label: "Mask before the provider too (answers restored)" },
  { value: "block", label: "Block calls holding sensitive data" },
];
const SHORT: Record<string, string> = { off: "Off", mask_stored: "Mask what is stored", mask_upstream: "Mask before the provider", block: "Block" };
const modeLabel = (m: string) => SHORT[m] ?? m;

function ProjectRule({ rule }: { rule: MaskingRule | undefined }) {
  const [mode, setMode] = useState<string>(rule?.mode ?? "off");
  const [kinds, setKinds] = useState<string[]>(rule?.kinds ?? []);
  const set = useSetMaskingRule();
  const known = useMaskingKinds();
  const kindChoices = [...new Set([...(known.data ?? []).map((k) => k.kind), ...kinds])];
  return (
    <Paper withBorder p="md" data-testid="project-rule">
      <Stack gap="sm">
        <Title order={4}>The project's rule</Title>
        <Group align="flex-end" wrap="wrap">
          <Select label="Mode" data={MODES} value={mode} onChange={(v) => v && setMode(v)} allowDeselect={false} w={420} maw="100%" />
          <MultiSelect
            label="Kinds"
            placeholder={kinds.length ? undefined : "every kind"}
            data={kindChoices}
            value={kinds}
            onChange={setKinds}
            w={360}
            maw="100%"
            clearable
          />
          <MayButton
            may="masking.set"
            loading={set.isPending}
            onClick={() => set.mutate({ mode: mode as never, kinds: kinds.length ? (kinds as never) : null })}
          >
            Save
          </MayButton>
        </Group>
        <ErrorAlert error={set.error} />
      </Stack>
    </Paper>
  );
}

function NarrowingRules({ rules }: { rules: MaskingRule[] }) {
  const [scope, setScope] = useState<"key" | "model">("key");
  const [subject, setSubject] = useState("");
  const [mode, setMode] = useState("block");
  const set = useSetMaskingRule(() => setSubject(""));
  const remove = useDeleteMaskingRule();
  return (
    <Stack gap="sm">
      <Title order={4}>For one key or one model</Title>
      <Text size="sm" c="dimmed">
        A call is masked by the strictest rule that applies to it: the project's, its key's, its model's (a route is the model hone:&lt;slug&gt;).
      </Text>
      <DataTable
        label="Masking rules for keys and models"
        testId="masking-rules"
        columns={["For", "Mode", "Kinds", "Changed", ACTIONS]}
        rows={rules}
        empty="None: the project's rule applies to every call."
        row={(r) => (
          <Table.Tr key={r.id} data-rule={r.subject ?? ""}>
            <Table.Td>
              {r.scope} <Code>{r.subject}</Code>
            </Table.Td>
            <Table.Td>{modeLabel(r.mode)}</Table.Td>
            <Table.Td>{r.kinds?.join(", ") ?? "every kind"}</Table.Td>
            <Table.Td>
              <When value={r.updatedAt} />
            </Table.Td>
            <Table.Td>
              <RowActions>
                <DeleteButton may="masking.delete" label={`Delete the rule for ${r.subject}`} onClick={() => remove.mutate({ id: r.id })} />
              </RowActions>
            </Table.Td>
          </Table.Tr>
        )}
      />
      <Group align="flex-end" wrap="wrap">
        <Select
          label="For"
          data={[
            { value: "key", label: "A key (its id)" },
            { value: "model", label: "A model" },
          ]}
          value={scope}
          onChange={(v) => v && setScope(v as "key" | "model")}
          allowDeselect={false}
          w={180}
        />
        <TextInput
          label={scope === "key" ? "Key id" : "Model"}
          placeholder={scope === "key" ? "key_…" : "openai:gpt-4o-mini"}
          value={subject}
          onChange={(e) => setSubject(e.currentTarget.value)}
          w={280}
          maw="100%"
        />
        <Select label="Mode" data={MODES} value={mode} onChange={(v) => v && setMode(v)} allowDeselect={false} w={380} maw="100%" />
        <MayButton
          may="masking.set"
          disabled={!subject.trim()}
          loading={set.isPending}
          onClick={() => set.mutate({ scope, subject: subject.trim(), mode: mode as never })}
        >
          Add rule
        </MayButton>
      </Group>
      <ErrorAlert error={set.error ?? remove.error} />
    </Stack>
  );
}

function OwnRecognizers() {
  const list = useOwnRecognizers();
  const [kind, setKind] = useState("");
  const [pattern, setPattern] = useState("");
  const [sample, setSample] = useState("");
  const set = useSetOwnRecognizer(() => {
    setKind("");
    setPattern("");
    setSample("");
  });
  const remove = useDeleteOwnRecognizer();
  return (
    <Stack gap="sm">
      <Title order={4}>Recognizers of your own</Title>
      <Text size="sm" c="dimmed">
        For values only you know the shape of (customer numbers, internal ids): a name and a regular expression, admitted when it cannot hang on a text (nested
        or overlapping repetition is refused) and finds a value in the sample you give.
      </Text>
      <DataTable
        label="The project's own recognizers"
        testId="own-recognizers"
        columns={["Kind", "Pattern", "Changed", ACTIONS]}
        query={list}
        empty="None yet: the built-in recognizers apply."
        row={(r) => (
          <Table.Tr key={r.id} data-kind={r.kind}>
            <Table.Td>
              <Code>{r.kind}</Code>
            </Table.Td>
            <Table.Td>
              <Code>{r.pattern}</Code>
            </Table.Td>
            <Table.Td>
              <When value={r.updatedAt} />
            </Table.Td>
            <Table.Td>
              <RowActions>
                <DeleteButton may="masking.deleteRecognizer" label={`Delete the recognizer ${r.kind}`} onClick={() => remove.mutate({ id: r.id })} />
              </RowActions>
            </Table.Td>
          </Table.Tr>
        )}
      />
      <Group align="flex-end" wrap="wrap">
        <TextInput label="Kind" placeholder="CUSTOMER_ID" value={kind} onChange={(e) => setKind(e.currentTarget.value.toUpperCase())} w={200} />
        <TextInput label="Pattern" placeholder="CUS-\d{8}" value={pattern} onChange={(e) => setPattern(e.currentTarget.value)} w={260} maw="100%" />
        <TextInput label="Sample" placeholder="customer CUS-12345678" value={sample} onChange={(e) => setSample(e.currentTarget.value)} w={300} maw="100%" />
        <MayButton
          may="masking.setRecognizer"
          disabled={!kind || !pattern || !sample}
          loading={set.isPending}
          onClick={() => set.mutate({ kind, pattern, sample })}
        >
          Add recognizer
        </MayButton>
      </Group>
      <ErrorAlert error={set.error ?? remove.error} />
    </Stack>
  );
}

function TryIt() {
  const [text, setText] = useState("");
  const run = useTryMasking();
  const result: MaskingTest | undefined = run.data;
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={4}>Try it</Title>
        <Textarea
          label="A text to try"
          description="Nothing you paste here is stored."
          autosize
          minRows={3}
          maxRows={12}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <Group>
          <Button variant="default" disabled={!text} loading={run.isPending} onClick={() => run.mutate(text)}>
            Find sensitive data
          </Button>
        </Group>
        <ErrorAlert error={run.error} />
        {result ? (
          <Stack gap="xs" data-testid="masking-result">
            <Group gap="xs">
              {result.counts.length ? (
                result.counts.map((c) => (
                  <Badge key={c.kind} variant="light" color="violet">
                    {c.kind} × {c.count}
                  </Badge>
                ))
              ) : (
                <Text size="sm">Nothing found.</Text>
              )}
            </Group>
            <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} data-testid="masked-text">
              <WithPlaceholders text={result.masked} />
            </Text>
            {result.analyzer === null ? null : result.analyzer === "ok" ? (
              <Text size="xs" c="dimmed">
                The operator's analyzer (names, places) read it too.
              </Text>
            ) : (
              <Text size="sm" c="orange.8" data-testid="masking-analyzer">
                {result.analyzer.charAt(0).toUpperCase() + result.analyzer.slice(1)}.
              </Text>
            )}
          </Stack>
        ) : null}
      </Stack>
    </Paper>
  );
}

function Backfill() {
  const list = useMaskingBackfills();
  const start = useStartMaskingBackfill();
  const last = list.data?.[0];
  const running = last && (last.status === "QUEUED" || last.status === "RUNNING");
  return (
    <Stack gap="sm">
      <Title order={4}>What was stored before</Title>
      <Text size="sm" c="dimmed">
        A rule masks what is stored from now on. To mask the logs, dataset entries and stored Responses already kept, run this once after setting it (with the
        kinds the rule masks).
      </Text>
      <Group>
        <MayButton may="masking.backfill" variant="default" disabled={Boolean(running)} loading={start.isPending} onClick={() => start.mutate()}>
          Mask what is already stored
        </MayButton>
      </Group>
      <ErrorAlert error={start.error ?? list.error} />
      {last ? (
        <Alert
          color={last.status === "ERROR" ? "red" : last.status === "DONE" ? "green" : "blue"}
          data-testid="masking-backfill"
          title={`Masking stored data: ${last.status.toLowerCase()}`}
        >
          <Stack gap={4}>
            <Progress value={last.total ? (100 * last.done) / last.total : 100} />
            <Text size="sm">
              {last.done.toLocaleString()} of {last.total.toLocaleString()} read ({last.phase}); {last.changed.toLocaleString()} held something to mask.
            </Text>
            {last.errorMessage ? <Text size="sm">{last.errorMessage}</Text> : null}
          </Stack>
        </Alert>
      ) : null}
    </Stack>
  );
}

/** What masking kept out of the logs of the last 7 days, by kind (never the values). */
function MaskedUsage() {
  const usage = useMaskedUsage();
  return (
    <Stack gap="sm">
      <Title order={4}>Masked in the last 7 days</Title>
      <ErrorAlert error={usage.error} />
      <DataTable
        label="Values masked by kind in the last 7 days"
        testId="masked-usage"
        columns={["Kind", "Logs", "Values"]}
        rows={usage.data}
        empty="Nothing was masked in the logs of the last 7 days."
        row={(u) => (
          <Table.Tr key={u.kind}>
            <Table.Td>
              <Code>{u.kind}</Code>
            </Table.Td>
            <Table.Td>{u.logs.toLocaleString()}</Table.Td>
            <Table.Td>{u.values.toLocaleString()}</Table.Td>
          </Table.Tr>
        )}
      />
    </Stack>
  );
}

/** Settings -> Masking. */
export function MaskingTab() {
  const rules = useMaskingRules();
  const project = rules.data?.find((r) => r.scope === "project");
  return (
    <Stack>
      <SectionIntro maw={760}>
        Keep sensitive data (e-mail addresses, phone and card numbers, IBANs, secrets pasted into prompts) out of what Hone stores, exports and trains on: each
        value becomes a placeholder such as <Code>&lt;EMAIL_1&gt;</Code>. Names and addresses in free text are not found by patterns: only by the operator's
        external analyzer, where one is set up.
      </SectionIntro>
      <ErrorAlert error={rules.error} title="Masking rules could not be loaded" />
      {rules.data ? <ProjectRule key={project?.updatedAt ?? "none"} rule={project} /> : null}
      <NarrowingRules rules={(rules.data ?? []).filter((r) => r.scope !== "project")} />
      <OwnRecognizers />
      <TryIt />
      <MaskedUsage />
      <Backfill />
    </Stack>
  );
}
