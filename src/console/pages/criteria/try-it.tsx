import { Badge, Button, Group, Paper, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { messageText } from "../../lib/messages";
import { errorMessageOf, useTRPC, useTRPCClient } from "../../lib/trpc";

const DEFAULT_INPUT = JSON.stringify([{ role: "user", content: "What is the capital of France?" }], null, 2);

/** Judges one output with one version: pasted, or taken from a logged call or an alignment row. */
export function TryIt({ criterionId, version }: { criterionId: string; version: number }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const [input, setInput] = useState(DEFAULT_INPUT);
  const [output, setOutput] = useState("Paris.");
  const [logId, setLogId] = useState("");
  const [loadError, setLoadError] = useState<string | null>(null);
  let parsed: unknown[] | null = null;
  let inputError: string | null = null;
  try {
    const v = JSON.parse(input) as unknown;
    if (Array.isArray(v)) parsed = v;
    else inputError = "The conversation must be a JSON array of messages";
  } catch {
    inputError = "The conversation is not valid JSON";
  }
  const judge = useMutation(trpc.criteria.judge.mutationOptions());
  const loadLog = async () => {
    setLoadError(null);
    try {
      const log = await client.logs.get.query({ id: logId.trim() });
      const req = log.reqPayload as { messages?: unknown[] } | null;
      const resp = log.respPayload as { choices?: { message?: unknown }[] } | null;
      const answer = resp?.choices?.[0]?.message;
      if (!req?.messages || !answer) throw new Error("This log has no conversation and answer to judge");
      setInput(JSON.stringify(req.messages, null, 2));
      setOutput(messageText(answer));
    } catch (err) {
      setLoadError(errorMessageOf(err));
    }
  };
  const result = judge.data;
  return (
    <Paper withBorder p="md" radius="md">
      <Stack>
        <Title order={4}>Try v{version}</Title>
        <Group align="flex-end">
          <TextInput label="Take the call of a log" placeholder="log_…" value={logId} onChange={(e) => setLogId(e.currentTarget.value)} w={360} />
          <Button variant="default" onClick={() => void loadLog()} disabled={!logId.trim()}>
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
          value={input}
          onChange={(e) => setInput(e.currentTarget.value)}
          autosize
          minRows={3}
          maxRows={12}
          error={inputError}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 12 } }}
        />
        <Textarea label="Output to judge ({{output}})" value={output} onChange={(e) => setOutput(e.currentTarget.value)} autosize minRows={2} maxRows={10} />
        <Group>
          <Button
            onClick={() =>
              parsed &&
              judge.mutate({
                criterion_id: `${criterionId}@v${version}`,
                input: { messages: parsed as never },
                output: { role: "assistant", content: output },
              })
            }
            loading={judge.isPending}
            disabled={!parsed}
          >
            Judge
          </Button>
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
    </Paper>
  );
}
