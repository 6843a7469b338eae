import { Group, Stack } from "@mantine/core";
import type { ReactNode } from "react";

/** What makes a field small enough for an InlineForm, its options list over the page. */
export const SMALL_FIELD = { size: "xs", comboboxProps: { withinPortal: true } } as const;

/** A one-line form of small fields and its button, sent with Enter or the button. */
export function InlineForm({ onSubmit, children }: { onSubmit(): void; children: ReactNode }) {
  return (
    <Group
      gap={6}
      align="flex-end"
      wrap="nowrap"
      component="form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </Group>
  );
}

/** A form of fields one under the other, sent with Enter or its submit button. */
export function StackForm({ onSubmit, children }: { onSubmit(): void; children: ReactNode }) {
  return (
    <Stack
      component="form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </Stack>
  );
}
