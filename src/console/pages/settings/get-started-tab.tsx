import { Anchor, Code, Group, Paper, Stack, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { PageHeader } from "../../components/page-header";
import { CopyTextButton } from "./copy-text-button";
import { curlSnippet, gatewayBaseUrl, openaiPythonSnippet, openaiSnippet, openpipePythonSnippet, openpipeSnippet } from "./snippets";

function Snippet({ title, description, code, name }: { title: string; description: string; code: string; name: string }) {
  return (
    <Paper withBorder p="md" radius="md">
      <PageHeader
        order={3}
        size="h4"
        mb="xs"
        title={title}
        description={description}
        actions={<CopyTextButton value={code} label={`Copy ${name} snippet`} />}
      />
      <Code block data-testid={`snippet-${name}`} style={{ overflowX: "auto", whiteSpace: "pre" }}>
        {code}
      </Code>
    </Paper>
  );
}

/** The snippets shown, in order: curl, then each SDK in TypeScript and Python. */
const SNIPPETS: { name: string; title: string; description: string; code(base: string): string }[] = [
  { name: "curl", title: "curl", description: "A chat completion through Hone, tagged so it can be filtered and split by prompt_id.", code: curlSnippet },
  { name: "openai", title: "openai SDK (TypeScript)", description: "The official SDK pointed at Hone: only baseURL and apiKey change.", code: openaiSnippet },
  {
    name: "openpipe",
    title: "openpipe SDK (TypeScript)",
    description: "Existing OpenPipe code: point its openpipe options (or OPENPIPE_BASE_URL and OPENPIPE_API_KEY) at Hone.",
    code: openpipeSnippet,
  },
  {
    name: "openai-python",
    title: "openai SDK (Python)",
    description: "The official Python SDK pointed at Hone: only base_url and api_key change.",
    code: openaiPythonSnippet,
  },
  {
    name: "openpipe-python",
    title: "openpipe SDK (Python)",
    description: "Existing OpenPipe Python code: point its openpipe options (or OPENPIPE_BASE_URL and OPENPIPE_API_KEY) at Hone.",
    code: openpipePythonSnippet,
  },
];

export function GetStartedTab() {
  const base = gatewayBaseUrl();
  return (
    <Stack maw={960}>
      <Paper withBorder p="md" radius="md">
        <Text size="sm" fw={500} mb={4}>
          Base URL (OpenAI-compatible)
        </Text>
        <Group gap="xs" wrap="nowrap">
          <Code data-testid="base-url" style={{ fontSize: 15, padding: "6px 10px" }}>
            {base}
          </Code>
          <CopyTextButton value={base} label="Copy base URL" />
        </Group>
        <Text size="sm" c="dimmed" mt="xs">
          Set <Code>HONE_API_KEY</Code> to a key from the{" "}
          <Anchor underline="always" renderRoot={(props) => <Link {...props} to="/settings" search={{ tab: "api-keys" }} />}>
            API keys
          </Anchor>{" "}
          tab (create a named one for each person and service there), and store the upstream provider's key under{" "}
          <Anchor underline="always" renderRoot={(props) => <Link {...props} to="/settings" search={{ tab: "provider-keys" }} />}>
            Provider keys
          </Anchor>
          . Models: <Code>gpt-4o-mini</Code> or <Code>openai:…</Code>, <Code>anthropic:…</Code>, <Code>gemini:…</Code>,{" "}
          <Code>hone:&lt;provider&gt;/&lt;model&gt;</Code> for a custom provider, <Code>hone:&lt;model&gt;</Code> for a fine-tune. The API reference is at{" "}
          <Anchor underline="always" href="/api/v1/docs" target="_blank">
            /api/v1/docs
          </Anchor>
          .
        </Text>
      </Paper>
      {SNIPPETS.map((x) => (
        <Snippet key={x.name} name={x.name} title={x.title} description={x.description} code={x.code(base)} />
      ))}
    </Stack>
  );
}
