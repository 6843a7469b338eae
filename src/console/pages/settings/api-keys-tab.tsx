import { Alert, Badge, Code, Group, Stack, Table, Text } from "@mantine/core";
import { MayButton } from "../../components/may-button";
import { When } from "../../components/when";
import { DeleteButton, RowActions, RowButton } from "../../components/row-actions";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ACTIONS, DataTable } from "../../components/data-table";
import { SectionIntro } from "../../components/section-intro";
import { formatRelative, formatTime } from "../../lib/format";
import { useSession } from "../../lib/session";
import { CreateKeyModal, EditKeyModal, keyName, RenameKeyModal } from "./key-modals";
import { type ApiKey, useApiKeys, useRevokeApiKey } from "./queries";

function Status({ k }: { k: ApiKey }) {
  if (!k.revokedAt && k.expiresAt && new Date(k.expiresAt).getTime() <= Date.now()) {
    return (
      <Badge color="gray" variant="light" title={formatTime(k.expiresAt)}>
        Expired
      </Badge>
    );
  }
  return k.revokedAt ? (
    <Badge color="gray" variant="light" title={formatTime(k.revokedAt)}>
      Revoked
    </Badge>
  ) : (
    <Badge color="green" variant="light">
      Active
    </Badge>
  );
}

export function ApiKeysTab() {
  const session = useSession();
  const keys = useApiKeys();
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<ApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const revoke = useRevokeApiKey(session.key?.id, () => setRevoking(null));
  const ownKey = revoking !== null && revoking.id === session.key?.id;
  return (
    <Stack>
      <SectionIntro
        maw={640}
        action={
          <MayButton may="apiKeys.create" onClick={() => setCreating(true)}>
            Create key
          </MayButton>
        }
      >
        Keys call the API and sign in to this console. Give each person and service its own named key, so one can be revoked without the others.
      </SectionIntro>
      <DataTable
        label="API keys"
        testId="api-keys-table"
        striped
        highlightOnHover
        minWidth={760}
        columns={["Name", "Key", "Created", "Last used", "May", "Status", ACTIONS]}
        query={keys}
        empty="No keys yet."
        row={(k) => (
          <Table.Tr key={k.id} data-key-id={k.id} data-key-name={k.name ?? ""}>
            <Table.Td>
              <Group gap={6} wrap="nowrap">
                <Text size="sm" fw={500}>
                  {k.name ?? <i>unnamed</i>}
                </Text>
                {k.id === session.key?.id ? (
                  <Badge size="xs" variant="outline">
                    this session
                  </Badge>
                ) : null}
              </Group>
            </Table.Td>
            <Table.Td>
              <Code>{k.prefix}</Code>
            </Table.Td>
            <Table.Td title={formatTime(k.createdAt)}>
              <Text size="sm">
                <When value={k.createdAt} />
              </Text>
            </Table.Td>
            <Table.Td title={k.lastUsedAt ? formatTime(k.lastUsedAt) : undefined}>
              <Text size="sm">{formatRelative(k.lastUsedAt)}</Text>
            </Table.Td>
            <Table.Td data-testid="key-grant">
              <Stack gap={2}>
                <Group gap={4}>
                  {k.scopes.length === 3 ? (
                    <Badge size="xs" variant="outline" color="gray">
                      everything
                    </Badge>
                  ) : (
                    k.scopes.map((s) => (
                      <Badge key={s} size="xs" variant="light">
                        {s}
                      </Badge>
                    ))
                  )}
                </Group>
                <Text size="xs" c="dimmed">
                  {k.owner === "person" ? "a person's key: stops when they leave" : "service key"}
                </Text>
                {k.allowedModels ? (
                  <Text size="xs" c="dimmed" title={k.allowedModels.join(", ")}>
                    models: {k.allowedModels.join(", ").slice(0, 60)}
                  </Text>
                ) : null}
                {k.expiresAt ? (
                  <Text size="xs" c="dimmed">
                    expires <When value={k.expiresAt} />
                  </Text>
                ) : null}
              </Stack>
            </Table.Td>
            <Table.Td>
              <Status k={k} />
            </Table.Td>
            <Table.Td>
              <RowActions>
                <RowButton may="apiKeys.rename" label={`Rename key ${keyName(k)}`} onClick={() => setRenaming(k)}>
                  Rename
                </RowButton>
                {k.revokedAt ? null : (
                  <RowButton may="apiKeys.update" label={`Edit key ${keyName(k)}`} onClick={() => setEditing(k)}>
                    Edit
                  </RowButton>
                )}
                {k.revokedAt ? null : (
                  <DeleteButton may="apiKeys.revoke" label={`Revoke key ${keyName(k)}`} onClick={() => setRevoking(k)}>
                    Revoke
                  </DeleteButton>
                )}
              </RowActions>
            </Table.Td>
          </Table.Tr>
        )}
      />
      <CreateKeyModal opened={creating} onClose={() => setCreating(false)} />
      {renaming ? <RenameKeyModal apiKey={renaming} onClose={() => setRenaming(null)} /> : null}
      {editing ? <EditKeyModal apiKey={editing} onClose={() => setEditing(null)} /> : null}
      <ConfirmDelete
        target={revoking}
        title={`Revoke key ${revoking ? keyName(revoking) : ""}?`}
        confirmLabel="Revoke key"
        onClose={() => setRevoking(null)}
        onConfirm={(t) => revoke.mutate({ id: t.id })}
        mutation={revoke}
      >
        <Text size="sm">
          Calls with <b>{revoking ? keyName(revoking) : ""}</b> (<Code>{revoking?.prefix}</Code>) are refused with 401 from now on, and every console session
          signed in with it ends. This cannot be undone.
        </Text>
        {ownKey ? (
          <Alert color="red" variant="light" title="This is the key you signed in with" data-testid="revoke-own-key">
            Revoking it ends this session too: you will be signed out and need another key to sign in again.
          </Alert>
        ) : null}
      </ConfirmDelete>
    </Stack>
  );
}
