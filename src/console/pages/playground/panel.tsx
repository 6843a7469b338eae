import { Paper, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";

/** One of the playground's boxes: a heading, then what it holds. */
export function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Stack gap="xs">
        <Text fw={600} component="h2" size="md">
          {title}
        </Text>
        {children}
      </Stack>
    </Paper>
  );
}
