import { Center, Paper, Stack, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** A page of its own before the console (signing in, an invitation): a titled card in the middle. */
export function AuthCard({ title, width = 480, children }: { title: string; width?: number; children: ReactNode }) {
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder p="xl" radius="md" w={width} maw="100%">
        <Stack>
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
