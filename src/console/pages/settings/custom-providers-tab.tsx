import { Badge, Button, Code, Group, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatTime } from "../../lib/format";
import { ConfirmModal } from "./confirm-modal";
import { ProviderModal } from "./provider-modal";
import { type CustomProvider, useCustomProviders, useDeleteCustomProvider } from "./queries";

export function CustomProvidersTab() {
  const providers = useCustomProviders();
  const [modal, setModal] = useState<{ editing: CustomProvider | null } | null>(null);
  const [deleting, setDeleting] = useState<CustomProvider | null>(null);
  const remove = useDeleteCustomProvider(() => {
    notifications.show({ message: `Custom provider ${deleting?.slug} deleted` });
    setDeleting(null);
  });
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
      {modal ? <ProviderModal key={modal.editing?.id ?? "new"} editing={modal.editing} onClose={() => setModal(null)} /> : null}
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
