import { Badge, Code, Group, PasswordInput, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { MayButton } from "../../components/may-button";
import { When } from "../../components/when";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { DataTable } from "../../components/data-table";
import { ErrorAlert } from "../../components/error-alert";

import type { RouterInputs } from "../../lib/trpc";
import { useDeleteProviderKey, useProviderKeys, useSetProviderKey } from "./queries";

type Provider = RouterInputs["providerKeys"]["set"]["provider"];

/** Every provider the API takes a key for (a Record, so a new one in the API is a type error here). */
const PROVIDERS: Record<Provider, { label: string; models: string }> = {
  openai: { label: "OpenAI", models: "bare model names and openai:…" },
  anthropic: { label: "Anthropic", models: "anthropic:…" },
  gemini: { label: "Google Gemini", models: "gemini:…" },
  together: { label: "Together AI", models: "fine-tuning and serving open models" },
  fireworks: { label: "Fireworks AI", models: "fine-tuning and serving open models" },
};

type StoredKey = { name: string; weight: number; last4: string; updatedAt: string | null };

/** A provider's key pool (several named keys, calls spread by weight), shown when it has one. */
function PoolKeys({ pool }: { pool: StoredKey[] }) {
  const total = pool.reduce((s, k) => s + k.weight, 0);
  return (
    <Stack gap={2} mt={4} data-testid="provider-key-pool">
      <Text size="xs" c="dimmed">
        Key pool: calls are spread by weight, each key with its own circuit
      </Text>
      {pool.map((k) => (
        <Group key={k.name} gap={6} wrap="nowrap">
          <Code>{k.name}</Code>
          <Code>…{k.last4}</Code>
          <Text size="xs" c="dimmed">
            {Math.round((k.weight / total) * 100)}% of calls
          </Text>
        </Group>
      ))}
    </Stack>
  );
}

function ProviderRow({ provider, stored, pool }: { provider: Provider; stored: StoredKey | undefined; pool: StoredKey[] }) {
  const form = useForm({ mode: "controlled", initialValues: { apiKey: "" } });
  const [deleting, setDeleting] = useState(false);
  const { label, models } = PROVIDERS[provider];
  const set = useSetProviderKey(label, () => form.reset());
  const remove = useDeleteProviderKey(label, () => setDeleting(false));
  const value = form.values.apiKey;
  return (
    <Table.Tr data-provider={provider}>
      <Table.Td>
        <Text fw={500} size="sm">
          {label}
        </Text>
        <Text size="xs" c="dimmed">
          {models}
        </Text>
      </Table.Td>
      <Table.Td data-testid={`provider-key-status-${provider}`}>
        {stored ? (
          <Group gap={6} wrap="nowrap">
            <Badge color="green" variant="light">
              Set
            </Badge>
            <Code data-testid={`provider-key-last4-${provider}`}>…{stored.last4}</Code>
          </Group>
        ) : (
          <Badge color="gray" variant="light">
            Not set
          </Badge>
        )}
        {stored?.updatedAt ? (
          <Text size="xs" c="dimmed">
            updated <When value={stored.updatedAt} />
          </Text>
        ) : null}
        {pool.length > 1 ? <PoolKeys pool={pool} /> : null}
      </Table.Td>
      <Table.Td>
        <Stack gap={4}>
          <form onSubmit={form.onSubmit((v) => set.mutate({ provider, apiKey: v.apiKey }))}>
            <Group gap="xs" wrap="nowrap">
              <PasswordInput
                aria-label={`${label} API key`}
                placeholder={stored ? "Paste a new key to replace it" : "Paste the key"}
                {...form.getInputProps("apiKey")}
                autoComplete="off"
                w={300}
                size="sm"
              />
              <MayButton
                may="providerKeys.set"
                type="submit"
                size="sm"
                disabled={!value.trim()}
                loading={set.isPending}
                aria-label={`${stored ? "Replace" : "Save"} ${label} key`}
              >
                {stored ? "Replace" : "Save"}
              </MayButton>
              {stored ? (
                <MayButton may="providerKeys.delete" size="sm" variant="light" color="red" onClick={() => setDeleting(true)} aria-label={`Delete ${label} key`}>
                  Delete
                </MayButton>
              ) : null}
            </Group>
          </form>
          <ErrorAlert error={set.error} title={`The ${label} key was not saved`} />
        </Stack>
        <ConfirmDelete
          opened={deleting}
          title={`Delete the ${label} key?`}
          confirmLabel="Delete key"
          onClose={() => setDeleting(false)}
          onConfirm={() => remove.mutate({ provider })}
          mutation={remove}
        >
          <Text size="sm">
            Calls to {label} models through Hone answer 400 until a key is set again. The key ending in <Code>{stored?.last4}</Code> is erased.
          </Text>
        </ConfirmDelete>
      </Table.Td>
    </Table.Tr>
  );
}

export function ProviderKeysTab() {
  const keys = useProviderKeys();
  // The key this form sets is the provider's default one; named keys (a key pool) come from the API.
  const all = keys.data ?? [];
  const poolOf = (p: Provider) => all.filter((k) => k.provider === p);
  const defaultOf = (p: Provider) => poolOf(p).find((k) => k.name === "default");
  return (
    <Stack>
      <Text size="sm" c="dimmed" maw={720}>
        The project's own keys for upstream providers, used for its calls through the gateway and its fine-tunes. They are stored encrypted; only the last 4
        characters are ever shown again.
      </Text>
      <DataTable
        label="Provider keys"
        verticalSpacing="sm"
        minWidth={760}
        columns={["Provider", "Key", <VisuallyHidden key="set">Set or replace</VisuallyHidden>]}
        rows={Object.keys(PROVIDERS) as Provider[]}
        error={keys.error}
        row={(p) => <ProviderRow key={p} provider={p} stored={defaultOf(p)} pool={poolOf(p)} />}
      />
    </Stack>
  );
}
