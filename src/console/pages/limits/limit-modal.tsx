import { Modal, NumberInput, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { FormActions } from "../../components/form-actions";
import { useForm } from "@mantine/form";
import { NAMED_CLOSE } from "../../components/modal-close";
import type { ApiKey } from "../settings/queries";
import { type Limit, useSetLimit } from "./queries";

type FormState = {
  scope: "project" | "key" | "tag";
  keyId: string | null;
  tagKey: string;
  tagValue: string;
  requestsPerMinute: number | string;
  tokensPerMinute: number | string;
  costPerDayUsd: number | string;
  costPerMonthUsd: number | string;
  unpricedCalls: "refuse" | "allow";
};

const num = (v: number | string) => (v === "" || v == null ? null : Number(v));
const positive = (v: number | string) => (v === "" ? null : Number(v) > 0 ? null : "More than 0, or empty for no limit");

/** Sets (or changes) one subject's limits: the project, a key, a tag value, or each value of a tag. */
export function LimitModal({ limit, keys, onClose }: { limit: Limit | null; keys: ApiKey[]; onClose: () => void }) {
  const form = useForm<FormState>({
    mode: "controlled",
    initialValues: {
      scope: limit?.scope ?? "project",
      keyId: limit?.keyId ?? null,
      tagKey: limit?.tagKey ?? "",
      tagValue: limit?.tagValue ?? "",
      requestsPerMinute: limit?.requestsPerMinute ?? "",
      tokensPerMinute: limit?.tokensPerMinute ?? "",
      costPerDayUsd: limit?.costPerDayUsd ?? "",
      costPerMonthUsd: limit?.costPerMonthUsd ?? "",
      unpricedCalls: limit?.unpricedCalls ?? "refuse",
    },
    validate: {
      keyId: (v, all) => (all.scope === "key" && !v ? "Choose a key" : null),
      tagKey: (v, all) => (all.scope === "tag" && !v.trim() ? "Name the tag (user, prompt_id, …)" : null),
      requestsPerMinute: positive,
      tokensPerMinute: positive,
      costPerDayUsd: positive,
      costPerMonthUsd: positive,
    },
  });
  const save = useSetLimit(onClose);
  const v = form.getValues();
  const submit = form.onSubmit((s) =>
    save.mutate({
      scope: s.scope,
      keyId: s.scope === "key" ? s.keyId : null,
      tagKey: s.scope === "tag" ? s.tagKey.trim() : null,
      tagValue: s.scope === "tag" && s.tagValue !== "" ? s.tagValue : null,
      requestsPerMinute: num(s.requestsPerMinute),
      tokensPerMinute: num(s.tokensPerMinute),
      costPerDayUsd: num(s.costPerDayUsd),
      costPerMonthUsd: num(s.costPerMonthUsd),
      unpricedCalls: s.unpricedCalls,
    }),
  );
  return (
    <Modal {...NAMED_CLOSE} opened onClose={onClose} title={limit ? "Change limit" : "Add a limit"} centered size="lg">
      <form onSubmit={submit}>
        <Stack>
          <SegmentedControl
            aria-label="Applies to"
            disabled={limit !== null}
            data={[
              { value: "project", label: "The project" },
              { value: "key", label: "One API key" },
              { value: "tag", label: "A tag" },
            ]}
            {...form.getInputProps("scope")}
          />
          {v.scope === "key" ? (
            <Select
              label="API key"
              disabled={limit !== null}
              data={keys.filter((k) => !k.revokedAt).map((k) => ({ value: k.id, label: `${k.name ?? "unnamed"} (${k.prefix})` }))}
              {...form.getInputProps("keyId")}
            />
          ) : null}
          {v.scope === "tag" ? (
            <SimpleGrid cols={2}>
              <TextInput label="Tag" placeholder="user" disabled={limit !== null} {...form.getInputProps("tagKey")} />
              <TextInput
                label="Value"
                placeholder="empty: each value on its own"
                description="Empty: every value of the tag gets these limits on its own (each user, each prompt)"
                disabled={limit !== null}
                {...form.getInputProps("tagValue")}
              />
            </SimpleGrid>
          ) : null}
          <Text size="sm" c="dimmed">
            Leave a field empty for no limit. Requests and tokens count per UTC minute; costs per UTC day and month, at list price or your overrides.
          </Text>
          <SimpleGrid cols={2}>
            <NumberInput label="Requests per minute" allowDecimal={false} {...form.getInputProps("requestsPerMinute")} />
            <NumberInput label="Tokens per minute" allowDecimal={false} thousandSeparator="," {...form.getInputProps("tokensPerMinute")} />
            <NumberInput label="Budget per day ($)" decimalScale={4} {...form.getInputProps("costPerDayUsd")} />
            <NumberInput label="Budget per month ($)" decimalScale={4} {...form.getInputProps("costPerMonthUsd")} />
          </SimpleGrid>
          {v.costPerDayUsd !== "" || v.costPerMonthUsd !== "" ? (
            <Select
              label="Calls to a model without a price"
              description="Hone cannot count the cost of a model it has no price for (add a price override to give it one)"
              allowDeselect={false}
              data={[
                { value: "refuse", label: "Refuse them (403)" },
                { value: "allow", label: "Allow them, counted at what they turn out to cost" },
              ]}
              {...form.getInputProps("unpricedCalls")}
            />
          ) : null}
          <FormActions form={form} label="Save limit" mutation={save} errorTitle="The limit was not saved" onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
