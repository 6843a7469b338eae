import { Badge, Button, Group, Paper, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { messageText } from "../../lib/messages";
import { errorMessageOf } from "../../lib/trpc";
import { MayButton } from "../../components/may-button";
import { useJudge, useReadLog } from "./queries";

const DEFAULT_INPUT = JSON.stringify([{ role: "user", content: "What is the capital of France?" }], null, 2);

/** The pasted conversation as messages, or why it is not. */
function parseConversation(input: string): { messages: unknown[] | null; error: string | null } {
  try {
    const v = JSON.parse(input) as unknown;
    return Array.isArray(v) ? { messages: v, error: null } : { messages: null, error: "The conversation must be a JSON array of messages" };
  } catch {
    return { messages: null, error: "The conversation is not valid JSON" };
  }
}

/** Judges one output with one version: pasted, or taken from a logged call. */
export function TryIt({ criterionId, version }: { criterionId: string; version: number }) {
  const form = useForm({ mode: "controlled", initialValues: { input: DEFAULT_INPUT, output: "Paris.", logId: "" } });
  const judge = useJudge();
  const readLog = useReadLog();
  const [loadError, setLoadError] = useState<string | null>(null);
  const { messages, error: inputError } = parseConversation(form.values.input);
  const loadLog = async () => {
    setLoadError(null);
    try {
      const log = await readLog(form.values.logId.trim());
      const req = log.reqPayload as { messages?: unknown[] } | null;
      const resp = log.respPayload as { choices?: { message?: unknown }[] } | null;
      const answer = resp?.choices?.[0]?.message;
      if (!req?.messages || !answer) throw new Error("This log has no conversation and answer to judge");
      form.setFieldValue("input", JSON.stringify(req.messages, null, 2));
      form.setFieldValue("output", messageText(answer));
    } catch (err) {
      setLoadError(errorMessageOf(err));
    }
  };
  // A verdict is shown beside what it judged only: another log loaded, or an edit, puts it away.
  const [judged, setJudged] = useState<string | null>(null);
  const current = `${version}\u0000${form.values.input}\u0000${form.values.output}`;
  const result = judged === current ? judge.data : undefined;
  return (
    <Paper withBorder p="md" radius="md">
      <form
        onSubmit={form.onSubmit((v) => {
          if (messages) {
            setJudged(current);
            judge.mutate({
              criterion_id: `${criterionId}@v${version}`,
              input: { messages: messages as never },
              output: { role: "assistant", content: v.output },
            });
          }
        })}
      >
        <Stack>
          <Title order={3} size="h4">
            Try v{version}
          </Title>
          <Group align="flex-end">
            <TextInput label="Take the call of a log" placeholder="log_…" {...form.getInputProps("logId")} w={360} maw="100%" />
            <Button variant="default" onClick={() => void loadLog()} disabled={!form.values.logId.trim()}>
              Load log
            </Button>
          </Group>
          {loadError ? (
            <Text c="red" size="sm" role="alert">
              {loadError}
            </Text>
          ) : null}
          <Textarea
            label="Conversation (JSON messages, {{messages}})"
            {...form.getInputProps("input")}
            autosize
            minRows={3}
            maxRows={12}
            error={inputError}
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 12 } }}
          />
          <Textarea label="Output to judge ({{output}})" {...form.getInputProps("output")} autosize minRows={2} maxRows={10} />
          <Group>
            <MayButton may="criteria.judge" type="submit" loading={judge.isPending} disabled={!messages}>
              Judge
            </MayButton>
          </Group>
          <ErrorAlert error={judge.error} title="The judge failed" />
          {result ? (
            <Paper withBorder p="sm" radius="md" data-testid="try-result">
              <Group gap="xs" mb={4}>
                <Badge color={result.score >= 1 ? "teal" : "red"} size="lg">
                  {result.score >= 1 ? "PASS" : "FAIL"}
                </Badge>
                <Text size="sm">score {result.score}</Text>
                <Text size="xs" c="dimmed">
                  {result.usage.total_tokens} judge tokens
                </Text>
              </Group>
              <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
                {result.explanation}
              </Text>
            </Paper>
          ) : null}
        </Stack>
      </form>
    </Paper>
  );
}
