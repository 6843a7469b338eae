import type { Ctx } from "../context";
import { createMasker, type Span, stringsOf } from "../../lib/masking";
import { analyze, hasAnalyzer } from "./analyzer";
import { maskingFor } from "./effective";

/** Bytes of text one analysis of stored values carries (the analyzer's own cap is 512 KB). */
const GROUP_BYTES = 256 * 1024;

/**
 * For what a project keeps outside its logs (dataset entries, stored Responses): a function that
 * masks one value (an entry: its messages, tools, metadata, rejected outputs together, so one value
 * is one placeholder throughout it), or null when the project's rule (or the operator's floor) is
 * off. Placeholders already in the value keep their numbers. `values`: what will be masked, read by
 * the external analyzer first (if there is one; a value it did not read is masked without it).
 */
export async function storageMasking(ctx: Ctx, values: readonly unknown[] = []): Promise<(<T>(value: T) => T) | null> {
  const m = await maskingFor(ctx, { keyId: null, models: [] });
  if (m.mode === "off") return null;
  const known = new Map<string, readonly Span[]>();
  if (hasAnalyzer(ctx)) {
    // In groups the analyzer takes whole, one after another (a 10,000-entry upload is many).
    let group: unknown[] = [];
    let bytes = 0;
    const flush = async () => {
      if (!group.length) return;
      const a = await analyze(ctx, m, group);
      for (const [t, s] of a.spans) known.set(t, s);
      group = [];
      bytes = 0;
    };
    for (const v of values) {
      let size = 0;
      for (const t of stringsOf(v)) size += t.length;
      if (bytes + size > GROUP_BYTES) await flush();
      group.push(v);
      bytes += size;
    }
    await flush();
  }
  return <T>(value: T) => createMasker({ recognizers: m.recognizers, kinds: m.kinds, known }).maskValue(value);
}
