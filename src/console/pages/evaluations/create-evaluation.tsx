import { Modal, MultiSelect, Select, Stack, TagsInput, Text, TextInput } from "@mantine/core";
import { FormActions } from "../../components/form-actions";
import { useForm } from "@mantine/form";
import { useNavigate } from "@tanstack/react-router";
import { useRef } from "react";
import { NAMED_CLOSE } from "../../components/modal-close";
import { formatNumber, plural } from "../../lib/format";
import { DATASET_MODEL, useCreateEvaluation, useCriteriaList, useDatasetsList, useModelSuggestions } from "./queries";

/** "8 answers to get, each judged 2 times.": what starting the evaluation costs. */
export function workSummary(answers: number, criteria: number): string {
  if (!criteria) return `${plural(answers, "answer")} to get; choose at least one criterion to judge them.`;
  const times = criteria === 1 ? "once" : `${formatNumber(criteria)} times`;
  return `${plural(answers, "answer")} to get, ${answers === 1 ? "" : "each "}judged ${times}.`;
}

/** A name (optional), a dataset, models and pinned criterion versions; opens the evaluation once started. */
export function CreateEvaluation({ onClose, initial }: { onClose(): void; initial: { model?: string; datasetId?: string } }) {
  const navigate = useNavigate();
  const datasets = useDatasetsList();
  const criteria = useCriteriaList();
  const suggestions = useModelSuggestions();
  const modelsRef = useRef<HTMLInputElement>(null);
  const form = useForm({
    mode: "controlled",
    initialValues: {
      name: "",
      datasetId: initial.datasetId ?? null,
      models: initial.model ? [initial.model] : ([] as string[]),
      criterionIds: [] as string[],
    },
  });
  const create = useCreateEvaluation((id) => {
    onClose();
    void navigate({ to: "/evaluations/$evaluationId", params: { evaluationId: id } });
  });
  const { datasetId, models, criterionIds } = form.values;
  const dataset = datasets.data?.find((d) => d.id === datasetId);
  const defaultName = `${models.length ? models.join(", ") : "<models>"} on ${dataset?.name ?? "<dataset>"}`;
  return (
    <Modal {...NAMED_CLOSE} opened onClose={onClose} title="New evaluation" size="lg">
      <form
        onSubmit={form.onSubmit((v) => {
          if (v.datasetId) create.mutate({ name: v.name.trim() || null, datasetId: v.datasetId, models: v.models, criterionIds: v.criterionIds });
        })}
      >
        <Stack>
          <TextInput label="Name" description="Optional: to find it by later" placeholder={defaultName} maxLength={200} {...form.getInputProps("name")} />
          <Select
            label="Dataset"
            description="Every model answers each of its TEST entries"
            data={(datasets.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${plural(d.testCount, "test entry", "test entries")})` }))}
            {...form.getInputProps("datasetId")}
            searchable
            required
          />
          {initial.datasetId && datasets.data && !dataset ? (
            <Text size="sm" c="red" role="alert">
              Dataset {initial.datasetId} does not exist (or was deleted); choose another.
            </Text>
          ) : null}
          <TagsInput
            label="Models"
            description={`Type any model string; '${DATASET_MODEL}' is the entry's own reference answer, hone:<slug> a deployed fine-tune`}
            data={suggestions}
            {...form.getInputProps("models")}
            maxTags={10}
            clearable
            // A model chosen from the list closes it, so it does not cover Criteria below.
            ref={modelsRef}
            onOptionSubmit={() => modelsRef.current?.blur()}
          />
          <MultiSelect
            label="Criteria (versions pinned)"
            description="Each model's answers are judged by every criterion chosen, at exactly this version"
            data={(criteria.data ?? []).map((c) => ({
              group: c.name,
              items: [...c.versions]
                .reverse()
                .map((v) => ({ value: `${c.id}@v${v.version}`, label: `${c.name} v${v.version}${v.version === c.latestVersion ? " (latest)" : ""}` })),
            }))}
            value={criterionIds}
            onChange={(values) => {
              // One version per criterion: the one picked last wins.
              const byCriterion = new Map(values.map((v) => [v.split("@v")[0], v]));
              form.setFieldValue("criterionIds", [...byCriterion.values()]);
            }}
            searchable
            maxValues={10}
          />
          {dataset ? (
            <Text size="sm" c="dimmed" data-testid="evaluation-work">
              {workSummary(dataset.testCount * models.length, criterionIds.length)}
            </Text>
          ) : null}
          <FormActions
            form={form}
            label="Start evaluation"
            mutation={create}
            errorTitle="Not started"
            disabled={!datasetId || !models.length || !criterionIds.length}
            onCancel={onClose}
          />
        </Stack>
      </form>
    </Modal>
  );
}
