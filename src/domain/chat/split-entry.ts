/** The input of a dataset entry (its messages without the final assistant turn) and that turn, its reference output. */
export function splitEntry(messages: unknown[]): { input: unknown[]; reference: Record<string, unknown> | null } {
  const last = messages.at(-1) as Record<string, unknown> | undefined;
  if (last?.role === "assistant") return { input: messages.slice(0, -1), reference: last };
  return { input: messages, reference: null };
}
