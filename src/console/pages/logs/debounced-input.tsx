import { Autocomplete, TextInput } from "@mantine/core";
import { useEffect, useRef, useState } from "react";

const DEBOUNCE_MS = 350;

/** A text filter typed into freely: the URL follows DEBOUNCE_MS after the last key. */
export function DebouncedInput({
  label,
  value,
  onCommit,
  placeholder,
  w,
  suggestions,
}: {
  label: string;
  value: string | undefined;
  onCommit(v: string | undefined): void;
  placeholder?: string;
  w?: number;
  suggestions?: string[];
}) {
  const [text, setText] = useState(value ?? "");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const cancel = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
  };
  // A change from outside (Clear all, a click on a value, a link) wins over a commit still waiting.
  useEffect(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    setText(value ?? "");
  }, [value]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const commitNow = (v: string) => {
    cancel();
    onCommit(v.trim() || undefined);
  };
  const change = (v: string) => {
    setText(v);
    cancel();
    timer.current = setTimeout(() => commitNow(v), DEBOUNCE_MS);
  };
  if (suggestions) {
    return (
      <Autocomplete
        label={label}
        size="xs"
        w={w}
        value={text}
        onChange={change}
        onOptionSubmit={(v) => {
          setText(v);
          // Mantine calls onChange with the option too: commit once, now.
          queueMicrotask(() => commitNow(v));
        }}
        data={suggestions}
        placeholder={placeholder}
        limit={30}
        clearable
        comboboxProps={{ withinPortal: true }}
      />
    );
  }
  return <TextInput label={label} size="xs" w={w} value={text} onChange={(e) => change(e.currentTarget.value)} placeholder={placeholder} />;
}
