import { Highlight, Text } from "@mantine/core";
import { createContext, useContext } from "react";
import { HAS_PLACEHOLDER, WithPlaceholders } from "../../components/placeholders";

/** The text search of the list the conversation was opened from: marked wherever text is shown. */
export const HighlightTerm = createContext<string | undefined>(undefined);

const TEXT_STYLE = { whiteSpace: "pre-wrap", wordBreak: "break-word" } as const;

/** A message's text, with the search term (if any) marked. */
export function MessageText({ children }: { children: string }) {
  const term = useContext(HighlightTerm);
  return term ? (
    <Highlight size="sm" style={TEXT_STYLE} highlight={term}>
      {children}
    </Highlight>
  ) : (
    <Text size="sm" style={TEXT_STYLE}>
      {HAS_PLACEHOLDER.test(children) ? <WithPlaceholders text={children} /> : children}
    </Text>
  );
}
