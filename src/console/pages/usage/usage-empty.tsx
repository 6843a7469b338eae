import { Anchor, Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { CopyTextButton } from "../settings/copy-text-button";
import { curlSnippet, gatewayBaseUrl } from "../settings/snippets";

/** No application calls in the range: how to make one. */
export function UsageEmptyState() {
  const base = gatewayBaseUrl();
  const snippet = curlSnippet(base);
  return (
    <Paper withBorder p="lg" radius="md" data-testid="usage-empty">
      <Stack gap="sm">
        <Title order={3}>No calls in this range</Title>
        <Text c="dimmed" size="sm">
          Send a call through Hone (or report one) and it shows up here. Choose a longer range above, or start with this call; more snippets are in{" "}
          <Anchor renderRoot={(props) => <Link {...props} to="/settings" search={{ tab: "get-started" }} />}>Settings → Get started</Anchor>.
        </Text>
        <Group align="flex-start" wrap="nowrap" gap="xs">
          <Code block style={{ flex: 1, overflowX: "auto" }}>
            {snippet}
          </Code>
          <CopyTextButton value={snippet} label="Copy curl snippet" />
        </Group>
      </Stack>
    </Paper>
  );
}
