import { Group, Text } from "@mantine/core";
import type { ReactNode } from "react";

/** A section's opening line, dimmed, with its main action beside it. */
export function SectionIntro({ children, action, maw = 720 }: { children: ReactNode; action?: ReactNode; maw?: number }) {
  return (
    <Group justify="space-between" align="flex-start">
      <Text size="sm" c="dimmed" maw={maw}>
        {children}
      </Text>
      {action}
    </Group>
  );
}
