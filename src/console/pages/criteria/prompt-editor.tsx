import { Badge, Group, Textarea } from "@mantine/core";
import { PROMPT_VARIABLES, promptProblems } from "../../lib/messages";

const VARIABLE_HELP: Record<(typeof PROMPT_VARIABLES)[number], string> = {
  messages: "the conversation before the output",
  tools: "the tools offered",
  tool_choice: "the tool choice",
  output: "the answer being judged (required)",
};

/** The variables a prompt may use, each marked as used or not; {{output}} is required. */
export function PromptVariables({ prompt }: { prompt: string }) {
  return (
    <Group gap={6} component="span" data-testid="prompt-variables">
      <span>Variables:</span>
      {PROMPT_VARIABLES.map((v) => {
        const used = new RegExp(`\\{\\{\\s*${v}\\s*\\}\\}`).test(prompt);
        return (
          <Badge
            key={v}
            component="span"
            variant={used ? "filled" : "outline"}
            color={v === "output" && !used ? "red" : "blue"}
            tt="none"
            title={VARIABLE_HELP[v]}
          >
            {`{{${v}}}`} {used ? "✓ used" : v === "output" ? "required" : "unused"}
          </Badge>
        );
      })}
    </Group>
  );
}

/** The prompt's text area: the variables it uses, and the API's rules checked as the person types. */
export function PromptField({ prompt, setPrompt }: { prompt: string; setPrompt(p: string): void }) {
  const problems = promptProblems(prompt);
  return (
    <Textarea
      label="Prompt"
      description={<PromptVariables prompt={prompt} />}
      value={prompt}
      onChange={(e) => setPrompt(e.currentTarget.value)}
      autosize
      minRows={8}
      maxRows={24}
      error={problems.length ? problems.join(". ") : undefined}
      styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 13 } }}
      required
    />
  );
}
