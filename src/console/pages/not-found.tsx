import { Anchor, Paper, Stack, Text, Title } from "@mantine/core";
import { Link, useRouterState } from "@tanstack/react-router";

/**
 * A console address with no page behind it, reached inside the console (a reload of one gets the
 * server's own not-found page, src/http/console/not-found-page.ts). Says so and offers the logs.
 */
export function NotFoundPage() {
  const path = useRouterState({ select: (s) => s.location.pathname });
  return (
    <Paper withBorder p="xl" radius="md" maw={560} data-testid="not-found">
      <Stack gap="sm">
        <Title order={1} size="h2">
          This page does not exist
        </Title>
        <Text>
          Hone has no page at <code>{path}</code>. The link may be mistyped, or what it pointed to was deleted.
        </Text>
        <Anchor fw={600} underline="always" renderRoot={(props) => <Link {...props} to="/logs" />}>
          Go to the logs
        </Anchor>
      </Stack>
    </Paper>
  );
}
