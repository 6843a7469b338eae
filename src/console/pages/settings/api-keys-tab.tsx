import { Alert, Badge, Button, Code, Group, Modal, Stack, Table, Text, TextInput, VisuallyHidden } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { CopyTextButton } from "./copy-text-button";
import { ErrorAlert } from "../../components/error-alert";
import { formatRelative, formatTime } from "../../lib/format";
import { useSession } from "../../lib/session";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";
import { ConfirmModal } from "./confirm-modal";

type ApiKey = RouterOutputs["apiKeys"]["list"][number];

const keyName = (k: { name: string | null; prefix: string }) => k.name ?? k.prefix;

/** Name a key, then see it once. */
function CreateKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() }),
    }),
  );
  const close = () => {
    onClose();
    setName("");
    create.reset();
  };
  const created = create.data;
  return (
    <Modal opened={opened} onClose={close} title={created ? "Your new API key" : "Create an API key"} centered size="lg">
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
        <Stack
          component="form"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name: name.trim() || null });
          }}
        >
          <TextInput
            label="Key name"
            description="Who or what uses it: a person, a service, a CI job. Shown in this list and in the console header."
            placeholder="e.g. alice, ci, support-bot"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            maxLength={100}
            required
            data-autofocus
          />
          <ErrorAlert error={create.error} title="The key was not created" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create key
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function Status({ k }: { k: ApiKey }) {
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
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const session = useSession();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: async (k) => {
        setRevoking(null);
        notifications.show({ message: `Key ${keyName(k)} revoked` });
        if (k.id === session.key?.id) {
          // This session's own key: its session has ended; the shell notices on the next call.
          await queryClient.invalidateQueries({ queryKey: trpc.session.me.queryKey() });
          return;
        }
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
      },
    }),
  );
  const ownKey = revoking !== null && revoking.id === session.key?.id;
  const list = keys.data ?? [];
  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Text size="sm" c="dimmed" maw={640}>
          Keys call the API and sign in to this console. Give each person and service its own named key, so one can be revoked without the others.
        </Text>
        <Button onClick={() => setCreating(true)}>Create key</Button>
      </Group>
      <ErrorAlert error={keys.error} title="Keys could not be loaded" />
      <Table.ScrollContainer minWidth={720}>
        <Table striped highlightOnHover aria-label="API keys" data-testid="api-keys-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Key</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((k) => (
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
                  <Text size="sm">{formatTime(k.createdAt)}</Text>
                </Table.Td>
                <Table.Td title={k.lastUsedAt ? formatTime(k.lastUsedAt) : undefined}>
                  <Text size="sm">{formatRelative(k.lastUsedAt)}</Text>
                </Table.Td>
                <Table.Td>
                  <Status k={k} />
                </Table.Td>
                <Table.Td ta="right">
                  {k.revokedAt ? null : (
                    <Button
                      size="xs"
                      variant="light"
                      color="red"
                      aria-label={`Revoke key ${keyName(k)}`}
                      onClick={() => {
                        revoke.reset();
                        setRevoking(k);
                      }}
                    >
                      Revoke
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
            {keys.isSuccess && list.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={6}>
                  <Text c="dimmed" size="sm">
                    No keys yet.
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <CreateKeyModal opened={creating} onClose={() => setCreating(false)} />
      <ConfirmModal
        opened={revoking !== null}
        title={`Revoke key ${revoking ? keyName(revoking) : ""}?`}
        confirmLabel="Revoke key"
        onClose={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        loading={revoke.isPending}
        error={revoke.error}
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
      </ConfirmModal>
    </Stack>
  );
}
