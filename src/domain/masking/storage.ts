import type { Ctx } from "../context";
import { createMasker } from "../../lib/masking";
import { maskingFor } from "./effective";

/**
 * For what a project keeps outside its logs (dataset entries, stored Responses): a function that
 * masks one value (an entry: its messages, tools, metadata, rejected outputs together, so one value
 * is one placeholder throughout it), or null when the project's rule (or the operator's floor) is
 * off. Placeholders already in the value keep their numbers.
 */
export async function storageMasking(ctx: Ctx): Promise<(<T>(value: T) => T) | null> {
  const m = await maskingFor(ctx, { keyId: null, models: [] });
  if (m.mode === "off") return null;
  return <T>(value: T) => createMasker({ recognizers: m.recognizers, kinds: m.kinds }).maskValue(value);
}
