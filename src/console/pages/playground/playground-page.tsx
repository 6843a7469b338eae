import { Alert, Button, Group, Kbd, Paper, SimpleGrid, Stack, Text } from "@mantine/core";
import { MayButton } from "../../components/may-button";
import { useSearch } from "@tanstack/react-router";
import { useEffect, useRef, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { useShortcuts } from "../../lib/shortcuts";
import { ConversationPanel } from "./conversation-panel";
import { prefillFromLog, toMessages } from "./drafts";
import { parsedTools, type PlaygroundForm, usePlaygroundForm } from "./form";
import { ModelsPanel } from "./models-panel";
import { OptionsPanel } from "./options-panel";
import { usePlaygroundRuns, useLogToPrefill } from "./queries";
import { Results } from "./results";
import type { PlaygroundSearch } from "./search";

const MOD_KEY = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘" : "Ctrl";
const num = (v: number | string) => (typeof v === "number" ? v : null);

/** Fills the form once from `?fromLog=` (the call's model and conversation, not its answer) and `?model=`. */
function usePrefill(form: PlaygroundForm, search: PlaygroundSearch) {
  const log = useLogToPrefill(search.fromLog);
  const [empty, setEmpty] = useState(false);
  const applied = useRef<string | null>(null);
  const key = `${search.fromLog ?? ""}|${search.model ?? ""}`;
  useEffect(() => {
    if (applied.current === key || (search.fromLog && !log.data && !log.error)) return;
    applied.current = key;
    const models = [...form.getValues().models];
    if (log.data) {
      const p = prefillFromLog(log.data);
      setEmpty(!p);
      if (log.data.model) models[0] = log.data.model;
      if (p) {
        form.setFieldValue("messages", p.messages);
        form.setFieldValue("tools", p.tools);
        if (p.temperature !== null) form.setFieldValue("temperature", p.temperature);
        if (p.maxTokens !== null) form.setFieldValue("maxTokens", p.maxTokens);
      }
    }
    if (search.model) models[0] = search.model;
    form.setFieldValue("models", models);
  }, [key, log.data, log.error, search.fromLog, search.model, form]);
  return { error: log.error, loading: log.isLoading, empty, logId: search.fromLog };
}

export function PlaygroundPage() {
  const search = useSearch({ from: "/playground" }) as PlaygroundSearch;
  const form = usePlaygroundForm();
  const runs = usePlaygroundRuns();
  const prefill = usePrefill(form, search);
  // The conversation and tools of the last run: what "Save as dataset entry" stores with an output.
  const [ran, setRan] = useState<{ conversation: Record<string, unknown>[]; tools: unknown[] | null }>({ conversation: [], tools: null });
  const values = form.values;
  const canRun = values.models.some((m) => m.trim()) && values.messages.length > 0;
  const run = () => {
    if (form.validate().hasErrors || !canRun) return;
    const v = form.getValues();
    const messages = toMessages(v.messages);
    const tools = parsedTools(v.tools);
    setRan({ conversation: messages, tools });
    runs.run(v.models.map((m) => m.trim()).filter(Boolean), {
      messages,
      temperature: num(v.temperature),
      maxTokens: num(v.maxTokens),
      n: num(v.n),
      tools,
      criteria: v.criteria.length ? v.criteria : null,
    });
  };
  useShortcuts("Playground", [
    {
      keys: "mod+Enter",
      label: "Run on every model (also while typing)",
      inFields: true,
      handler: (e) => {
        e.preventDefault();
        run();
      },
    },
  ]);
  return (
    <>
      <PageHeader
        title="Playground"
        description="Try a conversation on up to four models side by side. Calls are logged as Hone's own (playground) calls, tagged hone.source=playground."
      />
      {prefill.logId ? (
        <Stack mb="sm" gap="xs">
          <ErrorAlert error={prefill.error} title={`Log ${prefill.logId} could not be loaded`} />
          {prefill.empty ? (
            <Alert color="yellow" title="Nothing to fill in">
              Log {prefill.logId} holds no conversation (its request failed or was not a chat call).
            </Alert>
          ) : null}
          {!prefill.error && !prefill.empty && !prefill.loading ? (
            <Text size="sm" c="dimmed" data-testid="prefilled-from">
              Filled in from log {prefill.logId}: its model and its conversation, without the answer.
            </Text>
          ) : null}
        </Stack>
      ) : null}
      <SimpleGrid cols={{ base: 1, xl: 2 }} spacing="md">
        <Stack gap="sm" miw={0}>
          <ModelsPanel form={form} />
          <ConversationPanel form={form} />
          <OptionsPanel form={form} />
          {/* Sticks to the bottom of the window while the form is longer than it: Run stays in reach. */}
          <Paper withBorder p="xs" radius="md" pos="sticky" bottom={8} style={{ zIndex: 3, boxShadow: "var(--mantine-shadow-sm)" }} data-testid="run-bar">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Group gap="xs">
                <MayButton may="playground.run" onClick={run} loading={runs.running} disabled={!canRun}>
                  Run
                </MayButton>
                {runs.running ? (
                  <Button variant="default" onClick={runs.stop}>
                    Stop
                  </Button>
                ) : null}
              </Group>
              <Text size="xs" c="dimmed">
                <Kbd>{MOD_KEY}</Kbd> + <Kbd>Enter</Kbd> runs, also while typing
              </Text>
            </Group>
          </Paper>
        </Stack>
        <Results columns={runs.columns} conversation={ran.conversation} tools={ran.tools} />
      </SimpleGrid>
    </>
  );
}
