import { SegmentedControl, type SegmentedControlProps, Stack, Text } from "@mantine/core";
import { Hint } from "./hint";
import type { ReactNode } from "react";

/** A choice among a few, labelled like the form's other fields, with a line under it when given. */
export function SegmentedField({ label, hint, ...props }: { label: string; hint?: ReactNode } & Omit<SegmentedControlProps, "aria-label">) {
  return (
    <Stack gap={4} maw="100%">
      <Text size="sm" fw={500}>
        {label}
      </Text>
      {/* In a narrow window the choices scroll in their own box rather than widen the page. */}
      <SegmentedControl aria-label={label} {...props} style={{ maxWidth: "100%", overflowX: "auto", ...props.style }} />
      <Hint>{hint}</Hint>
    </Stack>
  );
}
