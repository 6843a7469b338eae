import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  List,
  Modal,
  PasswordInput,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatTime } from "../../lib/format";
import { errorMessageOf, type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";
import { ConfirmModal } from "./confirm-modal";

type CustomProvider = RouterOutputs["customProviders"]["list"][number];
type Kind = CustomProvider["kind"];
type UpdateInput = RouterInputs["customProviders"]["update"];

/** The URL guard's refusals all say "... may not be called: ..." (src/providers/upstream-guard.ts). */
const isUrlRefusal = (error: unknown) => error != null && /may not be called/i.test(errorMessageOf(error));

/** Why a base URL was refused, and what an operator can change. */
export function UpstreamRulesExplained() {
  return (
    <Alert color="orange" variant="light" title="Why Hone refuses some base URLs" data-testid="ssrf-explanation">
      <Stack gap={6}>
        <Text size="sm">
          A custom provider's URL is chosen by a project, but Hone's server makes the calls. So that no project can make the server reach inside its own
          network, Hone refuses URLs whose host is:
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7, ...)</List.Item>
          <List.Item>
            the local machine: loopback (127.0.0.0/8, ::1) or <Code>localhost</Code>
          </List.Item>
          <List.Item>link-local (169.254.0.0/16, fe80::/10)</List.Item>
          <List.Item>a cloud metadata service (169.254.169.254, metadata.google.internal, ...): never allowed</List.Item>
        </List>
        <Text size="sm">
          Host names are checked again each time a call resolves them. To reach a model server on your own network (vLLM, Ollama), the operator running Hone
          sets one of:
        </Text>
        <List size="sm" spacing={2}>
          <List.Item>
            <Code>HONE_ALLOW_PRIVATE_UPSTREAMS=true</Code>: custom providers may reach loopback, private and link-local addresses
          </List.Item>
          <List.Item>
            <Code>HONE_UPSTREAM_ALLOWLIST=ollama.internal:11434,10.0.0.0/8</Code>: only these hosts, host:port pairs, IPs or CIDRs
          </List.Item>
        </List>
      </Stack>
    </Alert>
  );
}

type FormState = { slug: string; kind: Kind; baseUrl: string; apiKey: string; removeKey: boolean; apiVersion: string };

function ProviderModal({ editing, opened, onClose }: { editing: CustomProvider | null; opened: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const initial: FormState = editing
    ? { slug: editing.slug, kind: editing.kind, baseUrl: editing.baseUrl, apiKey: "", removeKey: false, apiVersion: editing.apiVersion ?? "" }
    : { slug: "", kind: "openai", baseUrl: "", apiKey: "", removeKey: false, apiVersion: "" };
  const [form, setForm] = useState<FormState>(initial);
  const [formFor, setFormFor] = useState<string | null>(editing?.id ?? null);
  if ((editing?.id ?? null) !== formFor) {
    setFormFor(editing?.id ?? null);
    setForm(initial);
  }
  const patch = (p: Partial<FormState>) => setForm((f) => ({ ...f, ...p }));
  const done = async (p: CustomProvider, verb: string) => {
    notifications.show({ message: `Custom provider ${p.slug} ${verb}` });
    await queryClient.invalidateQueries({ queryKey: trpc.customProviders.list.queryKey() });
    close();
  };
  const create = useMutation(trpc.customProviders.create.mutationOptions({ onSuccess: (p) => done(p, "created") }));
  const update = useMutation(trpc.customProviders.update.mutationOptions({ onSuccess: (p) => done(p, "saved") }));
  const mutation = editing ? update : create;
  const close = () => {
    create.reset();
    update.reset();
    setForm(initial);
    onClose();
  };
  const submit = () => {
    const apiVersion = form.kind === "azure" ? form.apiVersion.trim() || null : null;
    if (!editing) {
      create.mutate({ slug: form.slug.trim(), kind: form.kind, baseUrl: form.baseUrl.trim(), apiKey: form.apiKey.trim() || null, apiVersion });
      return;
    }
    // Only what changed; an empty key field keeps the stored key.
    const input: UpdateInput = { id: editing.id };
    if (form.slug.trim() !== editing.slug) input.slug = form.slug.trim();
    if (form.kind !== editing.kind) input.kind = form.kind;
    if (form.baseUrl.trim() !== editing.baseUrl) input.baseUrl = form.baseUrl.trim();
    if (apiVersion !== editing.apiVersion) input.apiVersion = apiVersion;
    if (form.apiKey.trim()) input.apiKey = form.apiKey.trim();
    else if (form.removeKey) input.apiKey = null;
    update.mutate(input);
  };
  return (
    <Modal opened={opened} onClose={close} title={editing ? `Edit custom provider ${editing.slug}` : "Add a custom provider"} centered size="lg">
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <TextInput
          label="Slug"
          description={
            <>
              Call its models as <Code>hone:{form.slug || "<slug>"}/&lt;model&gt;</Code>. Lowercase letters, digits and dashes.
            </>
          }
          value={form.slug}
          onChange={(e) => patch({ slug: e.currentTarget.value })}
          required
          data-autofocus
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="custom-provider-kind">
            Kind
          </Text>
          <SegmentedControl
            aria-labelledby="custom-provider-kind"
            value={form.kind}
            onChange={(v) => patch({ kind: v as Kind })}
            data={[
              { value: "openai", label: "OpenAI-compatible" },
              { value: "azure", label: "Azure OpenAI" },
            ]}
          />
        </Stack>
        <TextInput
          label="Base URL"
          description={
            form.kind === "azure"
              ? "The resource, e.g. https://my-resource.openai.azure.com"
              : "Where /chat/completions lives, e.g. https://api.together.xyz/v1"
          }
          value={form.baseUrl}
          onChange={(e) => patch({ baseUrl: e.currentTarget.value })}
          required
          type="url"
        />
        {form.kind === "azure" ? (
          <TextInput
            label="API version"
            description="Azure's api-version, e.g. 2024-10-21"
            value={form.apiVersion}
            onChange={(e) => patch({ apiVersion: e.currentTarget.value })}
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
          value={form.apiKey}
          onChange={(e) => patch({ apiKey: e.currentTarget.value, removeKey: false })}
          autoComplete="off"
        />
        {editing?.keyLast4 ? (
          <Checkbox
            label="Remove the stored key"
            checked={form.removeKey}
            disabled={form.apiKey.trim() !== ""}
            onChange={(e) => patch({ removeKey: e.currentTarget.checked })}
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
        ) : (
          <ErrorAlert error={mutation.error} title={editing ? "The provider was not saved" : "The provider was not created"} />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {editing ? "Save" : "Add provider"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function CustomProvidersTab() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const providers = useQuery(trpc.customProviders.list.queryOptions());
  const [modal, setModal] = useState<{ editing: CustomProvider | null } | null>(null);
  const [deleting, setDeleting] = useState<CustomProvider | null>(null);
  const remove = useMutation(
    trpc.customProviders.delete.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: `Custom provider ${deleting?.slug} deleted` });
        setDeleting(null);
        await queryClient.invalidateQueries({ queryKey: trpc.customProviders.list.queryKey() });
      },
    }),
  );
  const list = providers.data ?? [];
  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Text size="sm" c="dimmed" maw={720}>
          Any OpenAI-compatible server (vLLM, Ollama, Together, Fireworks, ...) or an Azure OpenAI resource, called through the gateway as{" "}
          <Code>hone:&lt;slug&gt;/&lt;model&gt;</Code> with logging, caching and criteria like any other model.
        </Text>
        <Button onClick={() => setModal({ editing: null })}>Add provider</Button>
      </Group>
      <ErrorAlert error={providers.error} title="Custom providers could not be loaded" />
      <Table.ScrollContainer minWidth={820}>
        <Table striped highlightOnHover aria-label="Custom providers" data-testid="custom-providers-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Slug</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Base URL</Table.Th>
              <Table.Th>API version</Table.Th>
              <Table.Th>Key</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((p) => (
              <Table.Tr key={p.id} data-slug={p.slug}>
                <Table.Td>
                  <Code>{p.slug}</Code>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={p.kind === "azure" ? "blue" : "gray"}>
                    {p.kind === "azure" ? "Azure" : "OpenAI-compatible"}
                  </Badge>
                </Table.Td>
                <Table.Td style={{ wordBreak: "break-all" }}>
                  <Text size="sm" ff="monospace" data-testid="custom-provider-url">
                    {p.baseUrl}
                  </Text>
                </Table.Td>
                <Table.Td>{p.apiVersion ?? "–"}</Table.Td>
                <Table.Td>{p.keyLast4 ? <Code>…{p.keyLast4}</Code> : <Text size="sm">none</Text>}</Table.Td>
                <Table.Td>
                  <Text size="sm">{formatTime(p.createdAt)}</Text>
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap" justify="flex-end">
                    <Button size="xs" variant="default" onClick={() => setModal({ editing: p })} aria-label={`Edit ${p.slug}`}>
                      Edit
                    </Button>
                    <Button
                      size="xs"
                      variant="light"
                      color="red"
                      onClick={() => {
                        remove.reset();
                        setDeleting(p);
                      }}
                      aria-label={`Delete ${p.slug}`}
                    >
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
            {providers.isSuccess && list.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={7}>
                  <Text c="dimmed" size="sm">
                    No custom providers yet. Add one to call your own model server through Hone.
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ProviderModal opened={modal !== null} editing={modal?.editing ?? null} onClose={() => setModal(null)} />
      <ConfirmModal
        opened={deleting !== null}
        title={`Delete custom provider ${deleting?.slug ?? ""}?`}
        confirmLabel="Delete provider"
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        loading={remove.isPending}
        error={remove.error}
      >
        <Text size="sm">
          Calls to <Code>hone:{deleting?.slug}/…</Code> answer 404 from now on, and its stored key is erased. Logs of past calls stay.
        </Text>
      </ConfirmModal>
    </Stack>
  );
}
