import { SegmentedControl, type SegmentedControlProps, Stack, Text } from "@mantine/core";
import { Hint } from "./hint";
import type { ReactNode } from "react";

/** A choice among a few, labelled like the form's other fields, with a line under it when given. */
export function SegmentedField({ label, hint, ...props }: { label: string; hint?: ReactNode } & Omit<SegmentedControlProps, "aria-label">) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <SegmentedControl aria-label={label} {...props} />
      <Hint>{hint}</Hint>
    </Stack>
  );
}
