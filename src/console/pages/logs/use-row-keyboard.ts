import type { Virtualizer } from "@tanstack/react-virtual";
import { type RefObject, useCallback, useState } from "react";
import { useShortcuts } from "../../lib/shortcuts";
import type { Selection } from "./queries";

/**
 * The table's keyboard: one tab stop (the current row), and the Logs shortcuts (listed by `?`):
 * t focuses the table, j/k and the arrows move, Enter opens, x or Space selects, f opens the row's filter
 * menu. Keys act only while a row has the focus (t: while no log is open).
 */
export function useRowKeyboard(opts: {
  ids: string[];
  activeId: string | null;
  scrollRef: RefObject<HTMLDivElement | null>;
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  selection: Selection;
  onSelectionChange(s: Selection): void;
  onOpen(id: string): void;
}) {
  const { ids, activeId, scrollRef, virtualizer, selection, onSelectionChange, onOpen } = opts;
  // The row that holds the table's one tab stop: the last one focused (or the first).
  const [current, setCurrent] = useState<string | null>(null);
  const tabStop = current && ids.includes(current) ? current : (ids[0] ?? null);
  const [menuFor, setMenuFor] = useState<string | null>(null);

  const focusIndex = useCallback(
    (index: number) => {
      const id = ids[index];
      if (id === undefined) return;
      setCurrent(id);
      virtualizer.scrollToIndex(index, { align: "auto" });
      // The row may be rendered only after the scroll, and a closing drawer or menu may drop the
      // focus to the page while it goes: for a few frames, put it (back) on the row, unless the
      // person has moved it somewhere else meanwhile.
      let frames = 0;
      let focused = false;
      const attempt = () => {
        const el = scrollRef.current?.querySelector<HTMLElement>(`tr[data-log-id="${CSS.escape(id)}"]`);
        const dropped = !document.activeElement || document.activeElement === document.body;
        if (el && (!focused || dropped)) {
          el.focus();
          focused = true;
        }
        if (frames++ < 12) requestAnimationFrame(attempt);
      };
      requestAnimationFrame(attempt);
    },
    [ids, virtualizer, scrollRef],
  );

  /** The row the keyboard is on, or -1 when the focus is elsewhere. */
  const focusedIndex = () => {
    const el = document.activeElement;
    if (!(el instanceof HTMLElement) || el.tagName !== "TR" || !scrollRef.current?.contains(el)) return -1;
    return Number(el.dataset.index ?? -1);
  };
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selection.ids);
    if (on) next.add(id);
    else next.delete(id);
    onSelectionChange({ ids: next, allMatching: false });
  };
  const onRow = (run: (index: number) => void) => (e: KeyboardEvent) => {
    const i = focusedIndex();
    if (i < 0) return;
    e.preventDefault();
    run(i);
  };
  const move = (by: number) => onRow((i) => focusIndex(Math.max(0, Math.min(ids.length - 1, i + by))));
  useShortcuts("Logs", [
    {
      keys: "t",
      label: "Focus the table (the row last opened or focused, or the first)",
      handler: () => {
        if (activeId || !ids.length) return;
        focusIndex(Math.max(0, ids.indexOf(tabStop ?? "")));
      },
    },
    { keys: "j", label: "Next row", handler: move(1) },
    { keys: "k", label: "Previous row", handler: move(-1) },
    { keys: "ArrowDown", label: "Next row", handler: move(1), preventDefault: false },
    { keys: "ArrowUp", label: "Previous row", handler: move(-1), preventDefault: false },
    { keys: "Enter", label: "Open the focused row's log", handler: onRow((i) => onOpen(ids[i]!)), preventDefault: false },
    {
      keys: "x",
      label: "Select or unselect the focused row",
      handler: onRow((i) => toggle(ids[i]!, !selection.ids.has(ids[i]!))),
      preventDefault: false,
    },
    { keys: "space", label: "Select or unselect the focused row", handler: onRow((i) => toggle(ids[i]!, !selection.ids.has(ids[i]!))), preventDefault: false },
    { keys: "f", label: "Filter by a value of the focused row (is / is not)", handler: onRow((i) => setMenuFor(ids[i]!)), preventDefault: false },
  ]);

  return { tabStop, setCurrent, focusIndex, menuFor, setMenuFor, toggle };
}
