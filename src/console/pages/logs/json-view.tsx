// The raw JSON viewer: its own chunk, loaded only when someone opens the raw view.
import "react-json-view-lite/dist/index.css";
import { useComputedColorScheme } from "@mantine/core";
import { darkStyles, defaultStyles, JsonView } from "react-json-view-lite";

const expandTwoLevels = (level: number) => level < 3;

export default function RawJson({ data, label }: { data: unknown; label: string }) {
  const scheme = useComputedColorScheme("light");
  const value = typeof data === "object" && data !== null ? data : { value: data };
  return (
    <section aria-label={label} style={{ fontSize: 12, overflow: "auto" }}>
      <JsonView data={value} shouldExpandNode={expandTwoLevels} style={scheme === "dark" ? darkStyles : defaultStyles} clickToExpandNode />
    </section>
  );
}
