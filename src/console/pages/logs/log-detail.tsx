import { ActionIcon, Button, Center, Drawer, Group, Loader, Text, Tooltip } from "@mantine/core";
import { MayButton } from "../../components/may-button";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { useShortcuts } from "../../lib/shortcuts";
import { AddToDatasetModal } from "./add-to-dataset-modal";
import { type OnFilter, RowFilterMenu } from "./cell-filter";
import { DetailBody } from "./detail-body";
import { HighlightTerm } from "./highlight";
import { type LogDetailData, useLog } from "./queries";
import { filterPatch, type LogsSearch, patchSearch } from "./search";
import { TABLE_CSS } from "./table-css";

/** Whether Escape belongs to something over the drawer or in it (a menu, a list, another dialog). */
function escapeTakenElsewhere(e: KeyboardEvent): boolean {
  if (e.defaultPrevented) return true;
  const active = document.activeElement;
  if (active?.closest('[role="menu"], [role="listbox"]')) return true;
  return document.querySelectorAll('[role="dialog"][aria-modal="true"], [role="dialog"]').length > 1;
}

/** What to do with this log: filter the list by its values, add it to a dataset, try it in the playground. */
function DetailActions({ log, onFilter, onAdd }: { log: LogDetailData; onFilter: OnFilter; onAdd(): void }) {
  return (
    <Group gap="xs" mb="md" data-testid="detail-actions">
      <RowFilterMenu log={log} onFilter={onFilter} label="Filter the list by…" />
      <MayButton may="datasets.importLogs" size="xs" variant="default" onClick={onAdd}>
        Add to dataset
      </MayButton>
      <Button size="xs" variant="default" component={Link} to="/playground" search={{ fromLog: log.id } as never}>
        Open in playground
      </Button>
    </Group>
  );
}

/** One log in a drawer over the list, at /logs/$logId (the list's filters stay in the URL). */
export function LogDetail() {
  const { logId } = useParams({ from: "/logs/$logId" });
  const search = useSearch({ strict: false }) as LogsSearch;
  const navigate = useNavigate();
  const log = useLog(logId);
  const [adding, setAdding] = useState(false);
  const close = () => void navigate({ to: "/logs", search: (s) => s as LogsSearch });
  const onFilter: OnFilter = (field, value, exclude) =>
    void navigate({ to: "/logs", search: (s) => patchSearch(s as LogsSearch, filterPatch(s as LogsSearch, field, value, exclude)) });
  const openPlayground = () => void navigate({ to: "/playground", search: { fromLog: logId } });

  useShortcuts("Log", [
    {
      keys: "Escape",
      label: "Close the log (the keyboard goes back to its row)",
      handler: (e) => {
        if (!adding && !escapeTakenElsewhere(e)) close();
      },
      preventDefault: false,
    },
    { keys: "a", label: "Add this log to a dataset", handler: () => setAdding(true) },
    { keys: "p", label: "Open this log in the playground", handler: openPlayground },
  ]);

  return (
    <Drawer
      opened
      onClose={close}
      closeOnEscape={false}
      returnFocus={false}
      position="right"
      size="min(980px, 96vw)"
      title={
        <Group gap="xs">
          <Text fw={700}>Log</Text>
          <Text ff="monospace" size="sm" c="dimmed">
            {logId}
          </Text>
        </Group>
      }
      closeButtonProps={{ "aria-label": "Close log" }}
      aria-label="Log detail"
    >
      <style>{TABLE_CSS}</style>
      {log.isPending ? (
        <Center p="xl">
          <Loader aria-label="Loading the log" />
        </Center>
      ) : log.error ? (
        <ErrorAlert error={log.error} title="Could not load the log" />
      ) : (
        <HighlightTerm.Provider value={search.q}>
          <DetailActions log={log.data} onFilter={onFilter} onAdd={() => setAdding(true)} />
          <DetailBody log={log.data} />
          <AddToDatasetModal opened={adding} onClose={() => setAdding(false)} filters={[{ ids: [logId] }]} count="1 log" />
        </HighlightTerm.Provider>
      )}
      <Group mt="lg">
        <Tooltip label="Back to the list (Esc)">
          <ActionIcon variant="default" onClick={close} aria-label="Back to the list" size="lg">
            ←
          </ActionIcon>
        </Tooltip>
      </Group>
    </Drawer>
  );
}
