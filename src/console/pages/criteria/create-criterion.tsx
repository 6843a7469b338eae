import { Modal, Stack, TextInput } from "@mantine/core";
import { FormActions } from "../../components/form-actions";
import { NAMED_CLOSE } from "../../components/modal-close";
import { useForm } from "@mantine/form";
import { useNavigate } from "@tanstack/react-router";
import { promptProblems } from "../../lib/messages";
import { PromptField } from "./prompt-editor";
import { useCreateCriterion } from "./queries";

const EXAMPLE_PROMPT = `Does the answer respond to the user's last message correctly and politely?

Conversation:
{{messages}}

Answer to judge:
{{output}}`;

/** A name, a judge model and a prompt (checked as it is typed); opens the new criterion. */
export function CreateCriterion({ onClose }: { onClose(): void }) {
  const navigate = useNavigate();
  const form = useForm({
    mode: "controlled",
    initialValues: { name: "", judgeModel: "gpt-4o-mini", prompt: EXAMPLE_PROMPT },
    validate: {
      name: (v) => (v.trim() ? null : "Give it a name"),
      judgeModel: (v) => (v.trim() ? null : "Name the judge model"),
    },
  });
  const create = useCreateCriterion((c) => {
    onClose();
    void navigate({ to: "/criteria/$criterionId", params: { criterionId: c.id } });
  });
  const problems = promptProblems(form.values.prompt);
  return (
    <Modal {...NAMED_CLOSE} opened onClose={onClose} title="New criterion" size="lg">
      <form onSubmit={form.onSubmit((v) => create.mutate({ name: v.name.trim(), judgeModel: v.judgeModel.trim(), prompt: v.prompt }))}>
        <Stack>
          <TextInput label="Name" {...form.getInputProps("name")} required data-autofocus />
          <TextInput
            label="Judge model"
            description="Any model string the gateway routes (gpt-4o-mini, anthropic:claude-…, hone:<slug>)"
            {...form.getInputProps("judgeModel")}
            required
          />
          <PromptField prompt={form.values.prompt} setPrompt={(p) => form.setFieldValue("prompt", p)} />
          <FormActions
            form={form}
            label="Create criterion"
            error={create.error}
            errorTitle="Not created"
            loading={create.isPending}
            disabled={problems.length > 0}
            onCancel={onClose}
          />
        </Stack>
      </form>
    </Modal>
  );
}
