import { Badge, Code, Stack, Table, Text } from "@mantine/core";
import { MayButton } from "../../components/may-button";
import { When } from "../../components/when";
import { RowActions, RowButton } from "../../components/row-actions";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ACTIONS, DataTable } from "../../components/data-table";
import { SectionIntro } from "../../components/section-intro";

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
  return (
    <Stack>
      <SectionIntro
        action={
          <MayButton may="customProviders.create" onClick={() => setModal({ editing: null })}>
            Add provider
          </MayButton>
        }
      >
        Any OpenAI-compatible server (vLLM, Ollama, Together, Fireworks, ...) or an Azure OpenAI resource, called through the gateway as{" "}
        <Code>hone:&lt;slug&gt;/&lt;model&gt;</Code> with logging, caching and criteria like any other model.
      </SectionIntro>
      <DataTable
        label="Custom providers"
        testId="custom-providers-table"
        striped
        highlightOnHover
        minWidth={820}
        columns={["Slug", "Kind", "Base URL", "API version / base model", "Key", "Created", ACTIONS]}
        query={providers}
        empty="No custom providers yet. Add one to call your own model server through Hone."
        row={(p) => (
          <Table.Tr key={p.id} data-slug={p.slug}>
            <Table.Td>
              <Code>{p.slug}</Code>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={p.kind === "azure" ? "blue" : p.kind === "vllm" ? "grape" : "gray"}>
                {p.kind === "azure" ? "Azure" : p.kind === "vllm" ? "vLLM" : "OpenAI-compatible"}
              </Badge>
            </Table.Td>
            <Table.Td style={{ wordBreak: "break-all" }}>
              <Text size="sm" ff="monospace" data-testid="custom-provider-url">
                {p.baseUrl}
              </Text>
            </Table.Td>
            <Table.Td>{p.kind === "vllm" ? <Code>{p.baseModel}</Code> : (p.apiVersion ?? "–")}</Table.Td>
            <Table.Td>{p.keyLast4 ? <Code>…{p.keyLast4}</Code> : <Text size="sm">none</Text>}</Table.Td>
            <Table.Td>
              <Text size="sm">
                <When value={p.createdAt} />
              </Text>
            </Table.Td>
            <Table.Td>
              <RowActions deleteLabel={`Delete ${p.slug}`} deleteMay="customProviders.delete" onDelete={() => setDeleting(p)}>
                <RowButton label={`Edit ${p.slug}`} onClick={() => setModal({ editing: p })}>
                  Edit
                </RowButton>
              </RowActions>
            </Table.Td>
          </Table.Tr>
        )}
      />
      {modal ? <ProviderModal key={modal.editing?.id ?? "new"} editing={modal.editing} onClose={() => setModal(null)} /> : null}
      <ConfirmDelete
        target={deleting}
        title={`Delete custom provider ${deleting?.slug ?? ""}?`}
        confirmLabel="Delete provider"
        onClose={() => setDeleting(null)}
        onConfirm={(t) => remove.mutate({ id: t.id })}
        mutation={remove}
      >
        <Text size="sm">
          Calls to <Code>hone:{deleting?.slug}/…</Code> answer 404 from now on, and its stored key is erased. Logs of past calls stay.
        </Text>
      </ConfirmDelete>
    </Stack>
  );
}
