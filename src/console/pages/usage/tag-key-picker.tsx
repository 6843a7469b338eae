import { Autocomplete, Loader } from "@mantine/core";
import { useEffect, useState } from "react";
import { useUsageTagKeys } from "./queries";

/** The tag key to split by: suggested from the newest logs' tags, committed on pick, Enter or blur. */
export function TagKeyPicker({ value, onCommit }: { value: string; onCommit: (key: string) => void }) {
  const keys = useUsageTagKeys();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const commit = (v: string) => {
    const key = v.trim();
    if (key && key !== value) onCommit(key);
  };
  return (
    <Autocomplete
      label="Tag key"
      placeholder="e.g. prompt_id"
      w={200}
      data={(keys.data ?? []).map((k) => k.key)}
      value={text}
      onChange={setText}
      onOptionSubmit={commit}
      onBlur={() => commit(text)}
      onKeyDown={(e) => {
        if (e.key === "Enter") commit(text);
      }}
      rightSection={keys.isFetching ? <Loader size="xs" aria-label="Loading tag keys" /> : null}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
