import { Alert, Checkbox, Code, Modal, PasswordInput, Stack, TextInput } from "@mantine/core";
import { SegmentedField } from "../../components/segmented-field";
import { useForm } from "@mantine/form";
import { FormActions } from "../../components/form-actions";
import { NAMED_CLOSE } from "../../components/modal-close";
import type { RouterInputs } from "../../lib/trpc";
import { type CustomProvider, useCreateCustomProvider, useUpdateCustomProvider } from "./queries";
import { isUrlRefusal, UpstreamRulesExplained } from "./upstream-rules";

type Kind = CustomProvider["kind"];
type UpdateInput = RouterInputs["customProviders"]["update"];
type FormState = { slug: string; kind: Kind; baseUrl: string; apiKey: string; removeKey: boolean; apiVersion: string; baseModel: string };

const initialOf = (editing: CustomProvider | null): FormState =>
  editing
    ? {
        slug: editing.slug,
        kind: editing.kind,
        baseUrl: editing.baseUrl,
        apiKey: "",
        removeKey: false,
        apiVersion: editing.apiVersion ?? "",
        baseModel: editing.baseModel ?? "",
      }
    : { slug: "", kind: "openai", baseUrl: "", apiKey: "", removeKey: false, apiVersion: "", baseModel: "" };

/** Adds a provider, or edits one (only what changed is sent; an empty key field keeps the stored key). */
export function ProviderModal({ editing, onClose }: { editing: CustomProvider | null; onClose: () => void }) {
  const form = useForm<FormState>({ mode: "controlled", initialValues: initialOf(editing) });
  const create = useCreateCustomProvider(() => onClose());
  const update = useUpdateCustomProvider(() => onClose());
  const mutation = editing ? update : create;
  const submit = (f: FormState) => {
    const apiVersion = f.kind === "azure" ? f.apiVersion.trim() || null : null;
    const baseModel = f.kind === "vllm" ? f.baseModel.trim() || null : null;
    if (!editing) {
      create.mutate({ slug: f.slug.trim(), kind: f.kind, baseUrl: f.baseUrl.trim(), apiKey: f.apiKey.trim() || null, apiVersion, baseModel });
      return;
    }
    const input: UpdateInput = { id: editing.id };
    if (f.slug.trim() !== editing.slug) input.slug = f.slug.trim();
    if (f.kind !== editing.kind) input.kind = f.kind;
    if (f.baseUrl.trim() !== editing.baseUrl) input.baseUrl = f.baseUrl.trim();
    if (apiVersion !== editing.apiVersion) input.apiVersion = apiVersion;
    if (baseModel !== editing.baseModel) input.baseModel = baseModel;
    if (f.apiKey.trim()) input.apiKey = f.apiKey.trim();
    else if (f.removeKey) input.apiKey = null;
    update.mutate(input);
  };
  const { slug, kind, apiKey, removeKey } = form.values;
  return (
    <Modal {...NAMED_CLOSE} opened onClose={onClose} title={editing ? `Edit custom provider ${editing.slug}` : "Add a custom provider"} centered size="lg">
      <form onSubmit={form.onSubmit(submit)}>
        <Stack>
          <TextInput
            label="Slug"
            description={
              <>
                Call its models as <Code>hone:{slug || "<slug>"}/&lt;model&gt;</Code>. Lowercase letters, digits and dashes.
              </>
            }
            {...form.getInputProps("slug")}
            required
            data-autofocus
          />
          <SegmentedField
            label="Kind"
            value={kind}
            onChange={(v) => form.setFieldValue("kind", v as Kind)}
            data={[
              { value: "openai", label: "OpenAI-compatible" },
              { value: "azure", label: "Azure OpenAI" },
              { value: "vllm", label: "vLLM (serves trainer adapters)" },
            ]}
          />
          <TextInput
            label="Base URL"
            description={
              kind === "azure"
                ? "The resource, e.g. https://my-resource.openai.azure.com"
                : kind === "vllm"
                  ? "The vLLM server as Hone reaches it, e.g. http://gpu-1.internal:8000/v1"
                  : "Where /chat/completions lives, e.g. https://api.together.xyz/v1"
            }
            {...form.getInputProps("baseUrl")}
            required
            type="url"
          />
          {kind === "azure" ? (
            <TextInput label="API version" description="Azure's api-version, e.g. 2024-10-21" {...form.getInputProps("apiVersion")} required />
          ) : null}
          {kind === "vllm" ? (
            <TextInput
              label="Base model"
              description="The model this vLLM server serves, as your trainer models name it (a Hugging Face id or a path). Run hone-trainer sync beside the server: it loads their adapters."
              {...form.getInputProps("baseModel")}
              required
            />
          ) : null}
          <PasswordInput
            label="API key"
            description={
              editing?.keyLast4
                ? `A key ending in ${editing.keyLast4} is stored; leave empty to keep it.`
                : "Optional: sent as the bearer token (api-key for Azure). Stored encrypted."
            }
            value={apiKey}
            onChange={(e) => form.setValues({ apiKey: e.currentTarget.value, removeKey: false })}
            autoComplete="off"
          />
          {editing?.keyLast4 ? (
            <Checkbox
              label="Remove the stored key"
              checked={removeKey}
              disabled={apiKey.trim() !== ""}
              onChange={(e) => form.setFieldValue("removeKey", e.currentTarget.checked)}
            />
          ) : null}
          {isUrlRefusal(mutation.error) ? (
            <>
              {/* The API's own message (its issue repeats it for the field, so only the message). */}
              <Alert color="red" variant="light" role="alert" title={editing ? "The provider was not saved" : "The provider was not created"}>
                {mutation.error?.message}
              </Alert>
              <UpstreamRulesExplained />
            </>
          ) : null}
          <FormActions
            form={form}
            label={editing ? "Save" : "Add provider"}
            loading={mutation.isPending}
            error={isUrlRefusal(mutation.error) ? null : mutation.error}
            errorTitle={editing ? "The provider was not saved" : "The provider was not created"}
            onCancel={onClose}
          />
        </Stack>
      </form>
    </Modal>
  );
}
