import { Checkbox, Group, Stack, Textarea, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";

// What a key may do besides its name: scopes, allowed models, expiry, metadata. The same fields
// when a key is created and when it is changed.

export type GrantForm = { scopes: string[]; models: string; expiresAt: string; metadata: string };

type Grant = { scopes: string[]; allowedModels: string[] | null; expiresAt: string | null; metadata: Record<string, string> };

/** The form's values for a key's grant (a new key: every scope, any model, no expiry). */
export function grantForm(k?: Grant): GrantForm {
  return {
    scopes: k?.scopes ?? ["gateway", "read", "write"],
    models: (k?.allowedModels ?? []).join("\n"),
    // datetime-local wants local time without a zone.
    expiresAt: k?.expiresAt ? toLocalInput(new Date(k.expiresAt)) : "",
    metadata: Object.entries(k?.metadata ?? {})
      .map(([n, v]) => `${n}=${v}`)
      .join("\n"),
  };
}

function toLocalInput(d: Date): string {
  const off = d.getTimezoneOffset() * 60_000;
  return new Date(d.getTime() - off).toISOString().slice(0, 16);
}

const lines = (s: string) =>
  s
    .split(/[\n,]/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The API's fields from the form (the server checks them again and names what it refuses). */
export function grantInput(v: GrantForm) {
  const models = lines(v.models);
  return {
    scopes: v.scopes as ("gateway" | "read" | "write")[],
    allowedModels: models.length ? models : null,
    expiresAt: v.expiresAt ? new Date(v.expiresAt).toISOString() : null,
    metadata: Object.fromEntries(
      lines(v.metadata).map((kv) => {
        const i = kv.indexOf("=");
        return i < 0 ? [kv, ""] : [kv.slice(0, i).trim(), kv.slice(i + 1).trim()];
      }),
    ),
  };
}

export const grantProblems = {
  scopes: (v: string[]) => (v.length ? null : "Give the key at least one scope"),
  expiresAt: (v: string) => (v && new Date(v).getTime() <= Date.now() ? "Choose a time in the future (or revoke the key)" : null),
};

export function GrantFields<T extends GrantForm>({ form }: { form: UseFormReturnType<T> }) {
  const f = form as unknown as UseFormReturnType<GrantForm>;
  return (
    <Stack gap="sm">
      <Checkbox.Group label="What the key may do" description="A key for an app or an end user usually needs only the gateway." {...f.getInputProps("scopes")}>
        <Group mt={6}>
          <Checkbox value="gateway" label="Call models (gateway, reports)" />
          <Checkbox value="read" label="Read (API, console)" />
          <Checkbox value="write" label="Change (API, console)" />
        </Group>
      </Checkbox.Group>
      <Textarea
        label="Allowed models"
        description="One glob per line (openai:gpt-4o-mini*, anthropic:*); empty: any model"
        autosize
        minRows={2}
        {...f.getInputProps("models")}
      />
      <Group grow align="flex-start">
        <TextInput type="datetime-local" label="Expires" description="Empty: never" {...f.getInputProps("expiresAt")} />
        <Textarea label="Metadata" description="name=value per line (owner, app)" autosize minRows={2} {...f.getInputProps("metadata")} />
      </Group>
    </Stack>
  );
}
