import { Group, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import type { Role } from "../../key-scope";
import { useCan } from "../lib/session";

/** A page's title and actions; actions that change something name the role they need (`mutates`) and are hidden from those below it. */
export function PageHeader({ title, description, actions: given, mutates }: { title: string; description?: ReactNode; actions?: ReactNode; mutates?: Role }) {
  const can = useCan(mutates ?? "viewer");
  const actions = can ? given : null;
  return (
    <Group justify="space-between" align="flex-start" mb="md" wrap="nowrap">
      <Stack gap={2}>
        <Title order={2}>{title}</Title>
        {description ? (
          <Text c="dimmed" size="sm">
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? <Group gap="xs">{actions}</Group> : null}
    </Group>
  );
}
