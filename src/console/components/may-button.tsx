import { Button, type ButtonProps, Tooltip } from "@mantine/core";
import type { ComponentPropsWithoutRef } from "react";
import { useMay } from "../lib/session";

/**
 * A button whose action is the procedure `may`: disabled, with a tooltip saying who may, when the
 * signed-in role may not (from the table the server enforces: access.rules).
 */
export function MayButton({ may, disabled, ...props }: { may: string } & ButtonProps & Omit<ComponentPropsWithoutRef<"button">, keyof ButtonProps>) {
  const m = useMay(may);
  const button = <Button {...props} disabled={disabled || !m.allowed} data-may={may} data-allowed={m.allowed} />;
  return m.why ? (
    <Tooltip label={m.why} withinPortal>
      {/* A disabled button gets no pointer events: the tooltip sits on its wrapper. */}
      <span style={{ display: "inline-block" }} title={m.why} data-testid="may-refused">
        {button}
      </span>
    </Tooltip>
  ) : (
    button
  );
}
