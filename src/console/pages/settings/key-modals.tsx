import { Alert, Button, Code, Group, Modal, Stack, Text, TextInput } from "@mantine/core";
import { SegmentedField } from "../../components/segmented-field";
import { useForm } from "@mantine/form";
import { useSession } from "../../lib/session";
import { FormActions } from "../../components/form-actions";
import { NAMED_CLOSE } from "../../components/modal-close";
import { CopyTextButton } from "./copy-text-button";
import { GrantFields, grantForm, grantInput, grantProblems } from "./key-grant";
import { type ApiKey, useCreateApiKey, useRenameApiKey, useUpdateApiKey } from "./queries";

export const keyName = (k: { name: string | null; prefix: string }) => k.name ?? k.prefix;

/** The rules the API applies to a key's name, checked as it is typed. */
function nameProblem(value: string): string | null {
  const name = value.trim();
  if (!name) return "Give the key a name";
  if (name.length > 100) return "At most 100 characters";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return "One line, without control characters";
  return null;
}

const NAME_DESCRIPTION = "Who or what uses it: a person, a service, a CI job. Shown in this list and in the console header.";

/** Name a key, then see it once. */
export function CreateKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateApiKey();
  // A person's key is theirs (it stops when they leave) unless they make it for the project.
  const person = !!useSession().user;
  const form = useForm({
    mode: "controlled",
    initialValues: { name: "", owner: "me" as "me" | "project", ...grantForm() },
    validate: { name: nameProblem, ...grantProblems },
  });
  const close = () => {
    onClose();
    form.reset();
    create.reset();
  };
  const created = create.data;
  return (
    <Modal {...NAMED_CLOSE} opened={opened} onClose={close} title={created ? "Your new API key" : "Create an API key"} centered size="lg">
      {created ? (
        <Stack>
          <Alert color="yellow" variant="light" title="Copy it now">
            This is the only time the key is shown. Hone stores only its hash; if you lose it, create another and revoke this one.
          </Alert>
          <Text size="sm">
            Key <b>{keyName(created.key)}</b>:
          </Text>
          <Group gap="xs" wrap="nowrap" align="center">
            <Code data-testid="new-api-key" style={{ wordBreak: "break-all", flex: 1, fontSize: 14, padding: "8px 10px" }}>
              {created.apiKey}
            </Code>
            <CopyTextButton value={created.apiKey} label="Copy key" />
          </Group>
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={form.onSubmit((v) => create.mutate({ name: v.name.trim(), ...(person ? { owner: v.owner } : {}), ...grantInput(v) }))}>
          <Stack>
            <TextInput
              label="Key name"
              description={NAME_DESCRIPTION}
              placeholder="e.g. alice, ci, support-bot"
              {...form.getInputProps("name")}
              maxLength={100}
              required
              data-autofocus
            />
            {person ? (
              <SegmentedField
                label="Belongs to"
                data={[
                  { value: "me", label: "Me" },
                  { value: "project", label: "The project (a service key)" },
                ]}
                {...form.getInputProps("owner")}
                hint={
                  form.getValues().owner === "me"
                    ? "It acts with your role and stops if you leave the organisation or your account is disabled."
                    : "It keeps working whoever leaves: for services and CI."
                }
              />
            ) : null}
            <GrantFields form={form} />
            <FormActions form={form} label="Create key" mutation={create} errorTitle="The key was not created" onCancel={close} />
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** A new name for a key (the key itself does not change). */
export function RenameKeyModal({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const form = useForm({ mode: "controlled", initialValues: { name: apiKey.name ?? "" }, validate: { name: nameProblem } });
  const rename = useRenameApiKey(() => onClose());
  return (
    <Modal {...NAMED_CLOSE} opened onClose={onClose} title={`Rename key ${keyName(apiKey)}`} centered>
      <form onSubmit={form.onSubmit((v) => rename.mutate({ id: apiKey.id, name: v.name.trim() }))}>
        <Stack>
          <Text size="sm">
            Key <Code>{apiKey.prefix}</Code>. Only its name changes: calls and sessions with it go on as before.
          </Text>
          <TextInput label="New name" description={NAME_DESCRIPTION} {...form.getInputProps("name")} maxLength={100} required data-autofocus />
          <FormActions form={form} label="Rename key" mutation={rename} errorTitle="The key was not renamed" onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}

/** A key's scopes, allowed models, expiry and metadata (applied on this server at once, on others within HONE_API_KEY_CACHE_MS). */
export function EditKeyModal({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const form = useForm({ mode: "controlled", initialValues: grantForm(apiKey), validate: grantProblems });
  const update = useUpdateApiKey(() => onClose());
  return (
    <Modal {...NAMED_CLOSE} opened onClose={onClose} title={`Edit key ${keyName(apiKey)}`} centered size="lg">
      <form onSubmit={form.onSubmit((v) => update.mutate({ id: apiKey.id, ...grantInput(v) }))}>
        <Stack>
          <Text size="sm">
            Key <Code>{apiKey.prefix}</Code>. Its limits and budget are set on the Limits page.
          </Text>
          <GrantFields form={form} />
          <FormActions form={form} label="Save key" mutation={update} errorTitle="The key was not saved" onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
