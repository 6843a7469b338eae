import { Kbd, Modal, Table, Text } from "@mantine/core";
import { useHotkeys } from "@mantine/hooks";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useId, useMemo, useRef, useState } from "react";

// Keyboard shortcuts: each page declares its own with useShortcuts (bound while it is shown), and
// `?` lists every shortcut active now, grouped by where it works. Keys use Mantine's hotkey
// syntax (`j`, `shift+x`, `mod+Enter`); like Mantine's, they are not taken while typing in a field.

export type Shortcut = {
  /** Mantine hotkey syntax: `j`, `mod+Enter`, `shift+/`. */
  keys: string;
  /** What it does, as the help lists it. */
  label: string;
  handler: (event: KeyboardEvent) => void;
  /** Also while typing in a field (Ctrl/Cmd+Enter to run, say). */
  inFields?: boolean;
  /** false: the key keeps its default action unless the handler prevents it (Enter on a button). */
  preventDefault?: boolean;
};

type Registered = { scope: string; shortcuts: Shortcut[] };
type Registry = { set(id: string, entry: Registered | null): void; list(): Registered[]; open(): void };

const ShortcutsContext = createContext<Registry | null>(null);

/** How a key combination reads in the help: `mod` as Ctrl (⌘ on a Mac). */
function keyLabel(keys: string): string[] {
  const mac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
  return keys.split("+").map((k) => (k === "mod" ? (mac ? "⌘" : "Ctrl") : k === "shift" ? "Shift" : k.length === 1 ? k : k));
}

/** Holds the shortcuts of the pages shown, and the `?` help (with the console's own: `?`). */
export function ShortcutsProvider({ children }: { children: ReactNode }) {
  const entries = useRef(new Map<string, Registered>());
  const [version, setVersion] = useState(0);
  const [helpOpen, setHelpOpen] = useState(false);
  const registry = useMemo<Registry>(
    () => ({
      set(id, entry) {
        if (entry) entries.current.set(id, entry);
        else entries.current.delete(id);
        setVersion((v) => v + 1);
      },
      list: () => [...entries.current.values()],
      open: () => setHelpOpen(true),
    }),
    [],
  );
  useEffect(() => {
    // `?` is Shift+/ on most layouts and something else on others: the key itself is what counts.
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "?" || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
      e.preventDefault();
      setHelpOpen((o) => !o);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const groups = useMemo(() => {
    void version;
    return [{ scope: "Everywhere", shortcuts: [{ keys: "?", label: "Show or hide this list", handler: () => {} }] }, ...registry.list()];
  }, [registry, version]);
  return (
    <ShortcutsContext.Provider value={registry}>
      {children}
      <Modal opened={helpOpen} onClose={() => setHelpOpen(false)} title="Keyboard shortcuts" size="lg">
        <Table data-testid="shortcut-help" verticalSpacing={4}>
          <Table.Tbody>
            {groups.flatMap((g) => [
              <Table.Tr key={`${g.scope}-head`}>
                <Table.Th colSpan={2}>
                  <Text fw={700} size="sm">
                    {g.scope}
                  </Text>
                </Table.Th>
              </Table.Tr>,
              ...g.shortcuts.map((s) => (
                <Table.Tr key={`${g.scope}-${s.keys}`}>
                  <Table.Td w={160}>
                    {keyLabel(s.keys).map((k, i) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: a key combination's parts are in order
                      <span key={i}>
                        {i > 0 ? " + " : ""}
                        <Kbd>{k}</Kbd>
                      </span>
                    ))}
                  </Table.Td>
                  <Table.Td>{s.label}</Table.Td>
                </Table.Tr>
              )),
            ])}
          </Table.Tbody>
        </Table>
      </Modal>
    </ShortcutsContext.Provider>
  );
}

/**
 * Binds these shortcuts while the calling component is shown and lists them in the `?` help under
 * `scope`. Handlers may change from render to render: the latest ones run.
 */
export function useShortcuts(scope: string, shortcuts: Shortcut[]): void {
  const registry = useContext(ShortcutsContext);
  const id = useId();
  const latest = useRef(shortcuts);
  latest.current = shortcuts;
  const signature = shortcuts.map((s) => `${s.keys}:${s.label}`).join("|");
  // biome-ignore lint/correctness/useExhaustiveDependencies: registered again when the keys or labels change
  useEffect(() => {
    registry?.set(id, { scope, shortcuts: latest.current });
    return () => registry?.set(id, null);
  }, [registry, id, scope, signature]);
  const run = useCallback((keys: string) => (e: KeyboardEvent) => latest.current.find((s) => s.keys === keys)?.handler(e), []);
  useHotkeys(
    shortcuts.filter((s) => !s.inFields).map((s) => [s.keys, run(s.keys), { preventDefault: s.preventDefault ?? true }]),
    undefined,
  );
  useHotkeys(
    shortcuts.filter((s) => s.inFields).map((s) => [s.keys, run(s.keys), { preventDefault: s.preventDefault ?? true }]),
    [],
  );
}

/** Opens the `?` help (for a button that says "Keyboard shortcuts"). */
export function useOpenShortcutHelp(): () => void {
  const registry = useContext(ShortcutsContext);
  return () => registry?.open();
}
