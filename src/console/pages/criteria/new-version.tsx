import { Paper, Stack, Text, TextInput, Title } from "@mantine/core";
import { FormActions } from "../../components/form-actions";
import { useForm } from "@mantine/form";
import { TextDiff } from "../../components/text-diff";
import { promptProblems } from "../../lib/messages";
import { PromptField } from "./prompt-editor";
import { type CriterionDetail, useCreateVersion } from "./queries";

/** The next version, started from the latest one, with its diff as it is edited. */
export function NewVersion({ criterion, onCancel, onSaved }: { criterion: CriterionDetail; onCancel(): void; onSaved(version: number): void }) {
  const latest = criterion.versions.at(-1)!;
  const form = useForm({ mode: "controlled", initialValues: { judgeModel: latest.judgeModel, prompt: latest.prompt } });
  const save = useCreateVersion(criterion.id, onSaved);
  const { judgeModel, prompt } = form.values;
  const problems = promptProblems(prompt);
  const unchanged = judgeModel.trim() === latest.judgeModel && prompt === latest.prompt;
  const next = criterion.latestVersion + 1;
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={form.onSubmit((v) => save.mutate({ criterionId: criterion.id, judgeModel: v.judgeModel.trim(), prompt: v.prompt }))}>
        <Stack>
          <Title order={3} size="h4">
            New version (v{next})
          </Title>
          <Text size="sm" c="dimmed">
            Versions never change once saved: evaluations and alignment runs keep pointing at the version they used.
          </Text>
          <TextInput label="Judge model" {...form.getInputProps("judgeModel")} required />
          <PromptField prompt={prompt} setPrompt={(p) => form.setFieldValue("prompt", p)} />
          {!unchanged ? <TextDiff before={latest.prompt} after={prompt} label={`Prompt changes against v${latest.version}`} /> : null}
          <FormActions
            form={form}
            label={<>Save as v{next}</>}
            error={save.error}
            errorTitle="Not saved"
            loading={save.isPending}
            disabled={problems.length > 0 || unchanged}
            onCancel={onCancel}
          />
        </Stack>
      </form>
    </Paper>
  );
}
