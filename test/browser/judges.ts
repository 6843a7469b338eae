// Deterministic judges for the console's criteria and evaluation tests. The fake OpenAI upstream
// hands every judge call (a forced record_verdict tool call) its rendered prompt; a criterion's
// prompt names its rule with a [rule:<name>] marker and puts the judged output after "OUTPUT>>".
import type { FakeUpstream } from "../helpers/fake-upstreams";

const RULES: Record<string, (output: string) => boolean> = {
  /** Fails outputs that say "bad". */
  v1: (o) => !/\bbad\b/.test(o),
  /** Stricter: fails "bad" and "meh". */
  v2: (o) => !/\b(bad|meh)\b/.test(o),
  /** Passes only a fine-tune's answers ("tuned: ..."). */
  tuned: (o) => /tuned:/.test(o),
  /** Fails any answer about question 3. */
  short: (o) => !/Question 3\b/.test(o),
};

export function installJudges(fake: FakeUpstream): void {
  fake.judge = (prompt) => {
    const rule = /\[rule:(\w+)\]/.exec(prompt)?.[1] ?? "";
    const output = prompt.split("OUTPUT>>").at(-1) ?? "";
    const pass = RULES[rule]?.(output) ?? true;
    return pass
      ? { judgement: "PASS", explanation: `rule ${rule}: the output is acceptable.` }
      : { judgement: "FAIL", explanation: `rule ${rule}: the output breaks the rule.` };
  };
}

export const prompt = (rule: string, text = "Is the answer helpful?") => `[rule:${rule}] ${text}\nConversation: {{messages}}\nOUTPUT>> {{output}}`;
