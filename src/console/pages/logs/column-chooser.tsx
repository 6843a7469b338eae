import { Button, Checkbox, Menu, Text } from "@mantine/core";
import { useLocalStorage } from "@mantine/hooks";
import type { VisibilityState } from "@tanstack/react-table";
import { COLUMN_LABELS } from "./columns";

/** The columns a person chose, remembered in localStorage (provider hidden at first). */
export function useColumnVisibility() {
  return useLocalStorage<VisibilityState>({ key: "hone-logs-columns", defaultValue: { provider: false, api: false } });
}

/** The column chooser: a menu of checkboxes; columns left out to fit a narrow window say so. */
export function ColumnChooser({ visibility, onChange, dropped }: { visibility: VisibilityState; onChange(v: VisibilityState): void; dropped: string[] }) {
  const hidden = COLUMN_LABELS.filter((c) => dropped.includes(c.id)).map((c) => c.label);
  return (
    <Menu closeOnItemClick={false} position="bottom-end" withinPortal withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <Button variant="default" size="xs" title={hidden.length ? `Left out to fit the window: ${hidden.join(", ")}` : undefined}>
          Columns{hidden.length ? ` (${hidden.length} left out)` : ""}
        </Button>
      </Menu.Target>
      <Menu.Dropdown aria-label="Visible columns">
        {COLUMN_LABELS.map((c) => (
          <Menu.Item key={c.id} component="div">
            <Checkbox
              label={c.label}
              description={dropped.includes(c.id) ? "left out: the window is too narrow" : undefined}
              size="xs"
              checked={visibility[c.id] !== false}
              onChange={(e) => onChange({ ...visibility, [c.id]: e.currentTarget.checked })}
            />
          </Menu.Item>
        ))}
        {hidden.length ? (
          <Text size="xs" c="dimmed" px="sm" py={4} maw={240}>
            Status, latency and cost always stay; widen the window to see the columns left out.
          </Text>
        ) : null}
      </Menu.Dropdown>
    </Menu>
  );
}
