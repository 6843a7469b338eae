import { Paper, ScrollArea, Table, Text } from "@mantine/core";
import { type ReactNode, useRef, useState } from "react";

/** A drop zone that is also a button: drop a file on it, or click to choose one. */
export function FileDrop({ onFile, title, hint }: { onFile(file: File): void; title: string; hint: ReactNode }) {
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const pick = (files: FileList | null) => {
    const file = files?.[0];
    if (file) onFile(file);
  };
  return (
    <Paper
      withBorder
      p="xl"
      radius="md"
      style={{ borderStyle: "dashed", textAlign: "center", cursor: "pointer", opacity: dragging ? 0.7 : 1 }}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        pick(e.dataTransfer.files);
      }}
      onClick={() => input.current?.click()}
    >
      <Text fw={600}>{title}</Text>
      <Text size="xs" c="dimmed">
        {hint}
      </Text>
      <input
        ref={input}
        type="file"
        accept=".jsonl,.json,.txt,application/jsonl"
        hidden
        aria-label="JSONL file"
        onChange={(e) => pick(e.currentTarget.files)}
      />
    </Paper>
  );
}

/** The lines of an import that were refused, by line number, with the API's reason. */
export function RefusedLines({ errors }: { errors: { line: number; message: string }[] }) {
  if (!errors.length) return null;
  return (
    <ScrollArea.Autosize mah={240}>
      <Table aria-label="Refused lines">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Line</Table.Th>
            <Table.Th>Why</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {errors.slice(0, 1000).map((e) => (
            <Table.Tr key={e.line}>
              <Table.Td>{e.line}</Table.Td>
              <Table.Td>{e.message}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea.Autosize>
  );
}
