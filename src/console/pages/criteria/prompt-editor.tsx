import { Badge, Button, Code, Group, Paper, Select, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { TextDiff } from "../../components/text-diff";
import { formatTime } from "../../lib/format";
import { PROMPT_VARIABLES, promptProblems } from "../../lib/messages";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";
import { TryIt } from "./try-it";

export type CriterionDetail = RouterOutputs["criteria"]["get"];

const VARIABLE_HELP: Record<(typeof PROMPT_VARIABLES)[number], string> = {
  messages: "the conversation before the output",
  tools: "the tools offered",
  tool_choice: "the tool choice",
  output: "the answer being judged (required)",
};

/** The variables a prompt may use, each marked as used or not; {{output}} is required. */
export function PromptVariables({ prompt }: { prompt: string }) {
  return (
    <Group gap={6} component="span" data-testid="prompt-variables">
      <span>Variables:</span>
      {PROMPT_VARIABLES.map((v) => {
        const used = new RegExp(`\\{\\{\\s*${v}\\s*\\}\\}`).test(prompt);
        return (
          <Badge
            key={v}
            component="span"
            variant={used ? "filled" : "outline"}
            color={v === "output" && !used ? "red" : "blue"}
            tt="none"
            title={VARIABLE_HELP[v]}
          >
            {`{{${v}}}`} {used ? "✓ used" : v === "output" ? "required" : "unused"}
          </Badge>
        );
      })}
    </Group>
  );
}

/** The prompt's text area: the variables it uses, and the API's rules checked as the person types. */
export function PromptField({ prompt, setPrompt }: { prompt: string; setPrompt(p: string): void }) {
  const problems = promptProblems(prompt);
  return (
    <Textarea
      label="Prompt"
      description={<PromptVariables prompt={prompt} />}
      value={prompt}
      onChange={(e) => setPrompt(e.currentTarget.value)}
      autosize
      minRows={8}
      maxRows={24}
      error={problems.length ? problems.join(". ") : undefined}
      styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 13 } }}
      required
    />
  );
}

function NewVersion({ criterion, onDone }: { criterion: CriterionDetail; onDone(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const latest = criterion.versions.at(-1)!;
  const [judgeModel, setJudgeModel] = useState(latest.judgeModel);
  const [prompt, setPrompt] = useState(latest.prompt);
  const problems = promptProblems(prompt);
  const unchanged = judgeModel === latest.judgeModel && prompt === latest.prompt;
  const save = useMutation(
    trpc.criteria.createVersion.mutationOptions({
      onSuccess: async (v) => {
        await queryClient.invalidateQueries({ queryKey: trpc.criteria.get.queryKey({ criterionId: criterion.id }) });
        void queryClient.invalidateQueries({ queryKey: trpc.criteria.list.queryKey() });
        notifications.show({ message: `Version ${v.version} saved` });
        onDone();
      },
    }),
  );
  return (
    <Paper withBorder p="md" radius="md">
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ criterionId: criterion.id, judgeModel, prompt });
        }}
      >
        <Title order={4}>New version (v{criterion.latestVersion + 1})</Title>
        <Text size="sm" c="dimmed">
          Versions never change once saved: evaluations and alignment runs keep pointing at the version they used.
        </Text>
        <TextInput label="Judge model" value={judgeModel} onChange={(e) => setJudgeModel(e.currentTarget.value)} required />
        <PromptField prompt={prompt} setPrompt={setPrompt} />
        {!unchanged ? <TextDiff before={latest.prompt} after={prompt} label={`Prompt changes against v${latest.version}`} /> : null}
        <ErrorAlert error={save.error} title="Not saved" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending} disabled={problems.length > 0 || unchanged}>
            Save as v{criterion.latestVersion + 1}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** The versions of a criterion: each one's prompt and its diff against the one before; a new version; try it. */
export function PromptTab({ criterion }: { criterion: CriterionDetail }) {
  const [shown, setShown] = useState<number>(criterion.latestVersion);
  const [editing, setEditing] = useState(false);
  const version = criterion.versions.find((v) => v.version === shown) ?? criterion.versions.at(-1)!;
  const previous = criterion.versions.find((v) => v.version === version.version - 1);
  return (
    <Stack>
      {editing ? (
        <NewVersion
          criterion={criterion}
          onDone={() => {
            setEditing(false);
          }}
        />
      ) : null}
      <Group align="flex-end" justify="space-between">
        <Group align="flex-end">
          <Select
            label="Version"
            w={200}
            data={criterion.versions.map((v) => ({
              value: String(v.version),
              label: `v${v.version}${v.version === criterion.latestVersion ? " (latest)" : ""}`,
            }))}
            value={String(version.version)}
            onChange={(v) => v && setShown(Number(v))}
            allowDeselect={false}
          />
          <Text size="sm" c="dimmed" pb={8}>
            saved {formatTime(version.createdAt)} · judge <Code>{version.judgeModel}</Code>
          </Text>
        </Group>
        {!editing ? <Button onClick={() => setEditing(true)}>Edit (new version)</Button> : null}
      </Group>
      {previous ? (
        <Stack gap="xs" data-testid="version-diff">
          {previous.judgeModel !== version.judgeModel ? (
            <Text size="sm">
              Judge model: <del>{previous.judgeModel}</del> → <ins>{version.judgeModel}</ins>
            </Text>
          ) : null}
          <TextDiff before={previous.prompt} after={version.prompt} label={`v${version.version} against v${previous.version}`} />
        </Stack>
      ) : (
        <Code block style={{ whiteSpace: "pre-wrap" }} data-testid="version-prompt">
          {version.prompt}
        </Code>
      )}
      <TryIt criterionId={criterion.id} version={version.version} />
    </Stack>
  );
}
