import type { EntrySelection } from "./queries";

/**
 * The selection after a checkbox at `index` is set `on`: with `shift`, every row from the last one
 * clicked (`anchor`) to this one. Leaving "all matching" for picked rows starts from every loaded row.
 */
export function selectRange(
  selection: EntrySelection,
  rows: readonly { id: string }[],
  anchor: number | null,
  index: number,
  on: boolean,
  shift: boolean,
): EntrySelection {
  const from = shift && anchor !== null ? Math.min(anchor, index) : index;
  const to = shift && anchor !== null ? Math.max(anchor, index) : index;
  const next = new Set(selection.allMatching ? rows.map((r) => r.id) : selection.ids);
  for (let i = from; i <= to; i++) {
    const id = rows[i]?.id;
    if (!id) continue;
    if (on) next.add(id);
    else next.delete(id);
  }
  return { ids: next, allMatching: false };
}
