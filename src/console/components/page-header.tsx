import { Group, type MantineSpacing, Stack, Text, Title } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import type { ReactNode } from "react";
import type { Role } from "../../core/key-scope";
import { useCan } from "../lib/session";

/**
 * A page's (or a section's, `order` 3) title, a line under it, and its actions; actions that change
 * something name the role they need (`mutates`) and are hidden from those below it. `wrap`: the
 * actions go under the title in a narrow window (a long title wraps too).
 */
export function PageHeader({
  title,
  description,
  actions: given,
  mutates,
  order = 2,
  size,
  mb = "md",
  wrap = false,
  testId,
  actionsTestId,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  mutates?: Role;
  order?: 2 | 3;
  /** A smaller title than its order's (a card's heading). */
  size?: "h4";
  mb?: MantineSpacing | 0;
  wrap?: boolean;
  /** The description line's test id. */
  testId?: string;
  actionsTestId?: string;
}) {
  const can = useCan(mutates ?? "viewer");
  // A phone: the actions go under the title rather than past the window's edge.
  const narrow = useMediaQuery("(max-width: 48em)") ?? false;
  const wrapped = wrap || narrow;
  const actions = can ? given : null;
  return (
    <Group justify="space-between" align="flex-start" mb={mb} gap={wrapped ? "sm" : undefined} wrap={wrapped ? "wrap" : "nowrap"}>
      <Stack gap={2} style={wrapped ? { minWidth: 0 } : undefined}>
        <Title order={order} size={size} style={wrapped ? { overflowWrap: "anywhere" } : undefined}>
          {title}
        </Title>
        {description ? (
          <Text c="dimmed" size="sm" data-testid={testId}>
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? (
        <Group gap="xs" wrap={wrapped ? "wrap" : undefined} data-testid={actionsTestId}>
          {actions}
        </Group>
      ) : null}
    </Group>
  );
}
