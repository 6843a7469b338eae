import { Text } from "@mantine/core";
import type { ReactNode } from "react";

/** A small dimmed line under a value or a field, when there is one. */
export function Hint({ children }: { children?: ReactNode }) {
  return children ? (
    <Text size="xs" c="dimmed">
      {children}
    </Text>
  ) : null;
}
