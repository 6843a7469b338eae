import { useForm } from "@mantine/form";
import { type Draft, draft } from "./drafts";

export const MAX_MODELS = 4;

export type PlaygroundValues = {
  models: string[];
  messages: Draft[];
  temperature: number | string;
  maxTokens: number | string;
  n: number | string;
  tools: string;
  criteria: string[];
};

/** Why the tools box cannot be sent, or null (empty is fine: no tools). */
export function toolsProblem(tools: string): string | null {
  if (!tools.trim()) return null;
  try {
    return Array.isArray(JSON.parse(tools)) ? null : "tools must be a JSON array of tool definitions";
  } catch (err) {
    return `not valid JSON: ${(err as Error).message}`;
  }
}

export const parsedTools = (tools: string): unknown[] | null => (tools.trim() && !toolsProblem(tools) ? (JSON.parse(tools) as unknown[]) : null);

export function usePlaygroundForm() {
  return useForm<PlaygroundValues>({
    mode: "controlled",
    initialValues: {
      models: ["gpt-4o-mini"],
      messages: [draft("system", "You are a helpful assistant."), draft("user")],
      temperature: 1,
      maxTokens: "",
      n: 1,
      tools: "",
      criteria: [],
    },
    validate: { tools: toolsProblem },
    validateInputOnChange: ["tools"],
  });
}

export type PlaygroundForm = ReturnType<typeof usePlaygroundForm>;
