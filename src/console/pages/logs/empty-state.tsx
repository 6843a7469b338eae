import { Anchor, Code, Group, List, Paper, Stack, Text, Title } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { CopyButton } from "../../components/copy-button";

/** The project has no logs yet: how to make the first call through this server. */
export function LogsEmptyState() {
  const base = `${window.location.origin}/api/v1`;
  const curl = `curl -s ${base}/chat/completions \\
  -H "Authorization: Bearer $HONE_API_KEY" \\
  -H 'Content-Type: application/json' \\
  -H 'op-tags: {"prompt_id": "hello"}' \\
  -d '{"model": "openai:gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello"}]}'`;
  return (
    <Paper withBorder p="lg" maw={860} data-testid="logs-empty">
      <Stack>
        <Title order={3}>No calls logged yet</Title>
        <Text>Every call made through this Hone server, or reported to it, shows up here. To log the first one:</Text>
        <List type="ordered" spacing="xs">
          <List.Item>
            Store a provider key (OpenAI, Anthropic, Gemini or Together) in{" "}
            <Anchor component={Link} to="/settings">
              Settings
            </Anchor>
            .
          </List.Item>
          <List.Item>
            Point your OpenAI SDK at <Code>{base}</Code> with a Hone API key, or call it directly:
          </List.Item>
        </List>
        <Group align="flex-start" wrap="nowrap" gap="xs">
          <Code block style={{ flex: 1 }} aria-label="curl example">
            {curl}
          </Code>
          <CopyButton value={curl} label="Copy curl command" />
        </Group>
        <Text size="sm" c="dimmed">
          Calls made elsewhere can be reported with <Code>POST {base}/report</Code> (the OpenPipe SDK does this for you). This page polls for new calls when
          Live is on.
        </Text>
      </Stack>
    </Paper>
  );
}
