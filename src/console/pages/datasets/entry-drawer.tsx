import { Anchor, Button, Drawer, Group, Stack, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useMediaQuery } from "@mantine/hooks";
import { useState } from "react";
import { EntryCard } from "./entry-card";
import { EntryEditor } from "./entry-editor";
import type { Entry } from "./queries";

/**
 * One entry beside the table: the conversation as a card, and its editor. Without `entry`, the
 * editor of a new one.
 */
export function EntryDrawer({
  datasetId,
  entry,
  position,
  criterionNames,
  sharedSystem,
  startEditing,
  onClose,
}: {
  datasetId: string;
  entry: Entry | null;
  /** "Entry 12 of 345", when the entry is a row of the list. */
  position: string | null;
  criterionNames: Map<string, string>;
  sharedSystem: string | null;
  startEditing?: boolean;
  onClose(): void;
}) {
  const narrow = useMediaQuery("(max-width: 62em)");
  const [editing, setEditing] = useState(entry === null || Boolean(startEditing));
  const title = entry ? (editing ? "Edit entry" : "Entry") : "Add an entry";
  return (
    <Drawer
      opened
      onClose={onClose}
      position="right"
      size={narrow ? "100%" : 760}
      title={title}
      closeButtonProps={{ "aria-label": "Close the entry" }}
      data-testid="entry-drawer"
    >
      <Stack gap="sm">
        {entry ? (
          <Group justify="space-between">
            <Group gap="xs">
              <Text size="xs" c="dimmed" ff="monospace">
                {position ? `${position} · ` : ""}
                {entry.id}
              </Text>
              {entry.sourceLogId ? (
                // The call it came from, in the logs.
                <Anchor
                  size="xs"
                  data-testid="entry-source-log"
                  renderRoot={(props) => <Link {...props} to="/logs/$logId" params={{ logId: entry.sourceLogId! }} />}
                >
                  from log {entry.sourceLogId}
                </Anchor>
              ) : null}
            </Group>
            {editing ? null : (
              <Button size="xs" onClick={() => setEditing(true)}>
                Edit entry
              </Button>
            )}
          </Group>
        ) : null}
        {editing ? (
          <EntryEditor
            key={entry?.id ?? "new"}
            datasetId={datasetId}
            entry={entry}
            onDone={() => (entry ? setEditing(false) : onClose())}
            onCancel={() => (entry ? setEditing(false) : onClose())}
          />
        ) : entry ? (
          <EntryCard entry={entry} criterionNames={criterionNames} sharedSystem={sharedSystem} />
        ) : null}
      </Stack>
    </Drawer>
  );
}
