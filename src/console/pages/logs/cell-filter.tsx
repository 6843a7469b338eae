import { ActionIcon, Button, Menu } from "@mantine/core";
import type { MouseEvent, ReactNode } from "react";
import type { LogRow } from "./queries";
import { API_LABELS, type FilterField, SOURCE_LABELS } from "./search";

/** Filters the list by a value ("is"), or excludes it ("is not"). */
export type OnFilter = (field: FilterField, value: string, exclude: boolean) => void;

const FIELD_NAMES: Record<FilterField, string> = { model: "model", status: "status", source: "source", api: "API", provider: "provider", tag: "tag" };

/** How a value is named in labels: `model gpt-4o`, `tag prompt_id=p1`. */
export const describeValue = (field: FilterField, value: string) => `${FIELD_NAMES[field]} ${value}`;

/**
 * A value in a row that filters the list when clicked; Alt+click or Shift+click excludes it. Not a
 * tab stop (the row is): the keyboard's way is the row's filter menu (`f`, or its ⋯ button).
 */
export function FilterValue({
  field,
  value,
  onFilter,
  children,
  className,
}: {
  field: FilterField;
  value: string;
  onFilter: OnFilter;
  children: ReactNode;
  className?: string;
}) {
  const click = (e: MouseEvent) => {
    e.stopPropagation();
    onFilter(field, value, e.altKey || e.shiftKey);
  };
  const name = describeValue(field, value);
  return (
    <button
      type="button"
      tabIndex={-1}
      className={`hone-cell-value${className ? ` ${className}` : ""}`}
      onClick={click}
      title={`Click: only ${name}. Alt+click or Shift+click: everything but ${name}.`}
      data-filter-field={field}
      data-filter-value={value}
    >
      {children}
    </button>
  );
}

/** What a log needs for its values to filter by. */
export type FilterableLog = Pick<LogRow, "id" | "model" | "statusCode" | "source" | "provider" | "tags"> & { api?: string };

/** The values of a row a filter can take: [field, value, how it reads]. */
export function filterableValues(log: FilterableLog): { field: FilterField; value: string; label: string }[] {
  const out: { field: FilterField; value: string; label: string }[] = [];
  if (log.model) out.push({ field: "model", value: log.model, label: `Model ${log.model}` });
  const code = log.statusCode;
  out.push({ field: "status", value: code == null || code === 0 ? "none" : String(code), label: code == null || code === 0 ? "No status" : `Status ${code}` });
  out.push({ field: "source", value: log.source, label: `Source ${SOURCE_LABELS[log.source] ?? log.source}` });
  if (log.api) out.push({ field: "api", value: log.api, label: `API ${API_LABELS[log.api] ?? log.api}` });
  if (log.provider) out.push({ field: "provider", value: log.provider, label: `Provider ${log.provider}` });
  for (const [k, v] of Object.entries(log.tags).sort(([a], [b]) => a.localeCompare(b)))
    out.push({ field: "tag", value: `${k}=${v}`, label: `Tag ${k} = ${v}` });
  return out;
}

/** A row's ⋯ button: what its menu opens from. */
function RowMenuButton({ logId, onClick, ...rest }: { logId: string; onClick?: () => void }) {
  return (
    <ActionIcon
      size="sm"
      variant="subtle"
      color="gray"
      aria-label={`Filter by this log's values (${logId})`}
      data-row-menu
      {...rest}
      onClick={(e) => {
        e.stopPropagation();
        onClick?.();
      }}
      onKeyDown={(e) => e.stopPropagation()}
    >
      ⋯
    </ActionIcon>
  );
}

/**
 * Every filterable value of a row, each with "is" and "is not": the keyboard's and touch's way to
 * what a click and an Alt+click on a value do. `opened`/`onChange` let the `f` shortcut open it.
 * With `buttonOnly`, a closed menu is only its button (a click opens it through `onChange`): a
 * Menu is a floating element that measures itself when mounted, and one in every row cost the
 * table's first render more than the rows themselves. The table mounts the whole menu only in the
 * keyboard's current row (where `f` opens it) and in the row whose menu is open.
 */
export function RowFilterMenu({
  log,
  onFilter,
  opened,
  onChange,
  label,
  buttonOnly,
}: {
  log: FilterableLog;
  onFilter: OnFilter;
  opened?: boolean;
  onChange?: (opened: boolean) => void;
  /** A labelled button (the drawer's) instead of the row's ⋯. */
  label?: string;
  buttonOnly?: boolean;
}) {
  if (buttonOnly && onChange && !opened) return <RowMenuButton logId={log.id} onClick={() => onChange(true)} />;
  const values = filterableValues(log);
  return (
    <Menu position="bottom-start" withinPortal opened={opened} onChange={onChange} shadow="md" withInitialFocusPlaceholder={false}>
      <Menu.Target>
        {label ? (
          <Button size="xs" variant="default">
            {label}
          </Button>
        ) : (
          <RowMenuButton logId={log.id} />
        )}
      </Menu.Target>
      <Menu.Dropdown aria-label="Filter the list by a value of this log" style={{ maxHeight: 420, overflowY: "auto" }}>
        {values.map((v) => {
          const what = v.label.charAt(0).toLowerCase() + v.label.slice(1);
          return (
            // biome-ignore lint/a11y/useSemanticElements: a group of menu items (ARIA menu), not a form's fieldset
            <div key={`${v.field}:${v.value}`} role="group" aria-label={v.label}>
              <Menu.Label aria-hidden>{v.label}</Menu.Label>
              <Menu.Item onClick={() => onFilter(v.field, v.value, false)}>Only {what}</Menu.Item>
              <Menu.Item onClick={() => onFilter(v.field, v.value, true)}>Exclude {what}</Menu.Item>
            </div>
          );
        })}
      </Menu.Dropdown>
    </Menu>
  );
}
