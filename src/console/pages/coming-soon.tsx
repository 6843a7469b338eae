import { Paper, Text, Title } from "@mantine/core";

/** A section a later release fills in. */
export function ComingSoon({ section }: { section: string }) {
  return (
    <Paper withBorder p="xl" radius="md" maw={640}>
      <Title order={2} mb="xs">
        {section}
      </Title>
      <Text c="dimmed">
        Coming soon in the console. Everything here is already available through the API: see /api/v1/docs, the GraphQL endpoint at /graphql, or the tRPC
        router.
      </Text>
    </Paper>
  );
}
