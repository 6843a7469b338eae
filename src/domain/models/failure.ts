import type { Model } from "./schemas";

/** What a failed fine-tune's message points at, and what to check: said on the model (and its page). */
export type FailureKind = "key" | "base_url" | "backend" | "data" | "trainer" | "cancelled" | "unknown";
export type Failure = { kind: FailureKind; hint: string };

const BASE_URL_VAR: Record<string, string> = {
  openai: "OPENAI_BASE_URL",
  together: "TOGETHER_BASE_URL",
  fireworks: "FIREWORKS_BASE_URL",
};

/**
 * The kind of a fine-tune's failure, from its message (Hone writes them: the backend's answer with
 * its status, or Hone's own reason), and the check it calls for. Retrying helps once that is fixed.
 */
export function failureOf(m: Pick<Model, "status" | "errorMessage" | "backend">): Failure | null {
  if (m.status !== "ERROR") return null;
  const msg = m.errorMessage ?? "";
  const backend = m.backend;
  if (/^Cancelled/.test(msg)) return { kind: "cancelled", hint: "It was cancelled. Retry trains it again from the same settings." };
  if (/^The trainer failed/.test(msg)) {
    return {
      kind: "trainer",
      hint: "The trainer stopped with this error: its own log (hone-trainer work) says more. Fix it there (memory, the base model in its cache), then retry.",
    };
  }
  if (/API key|\b401\b|\b403\b|unauthori[sz]ed|invalid.{0,20}key|authentication|permission denied/i.test(msg)) {
    return {
      kind: "key",
      hint: `The ${backend} key was refused or is missing: check it in Settings → Provider keys (the project's ${backend} key), then retry.`,
    };
  }
  if (/Could not reach|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|timed out|timeout|not JSON|no route/i.test(msg)) {
    return {
      kind: "base_url",
      hint: `Hone could not talk to ${backend}: check ${BASE_URL_VAR[backend] ?? "the backend's URL"} and that this server reaches it, then retry.`,
    };
  }
  if (/dataset|TRAIN entr|training file|example|line \d|jsonl|format|preference pair|too (few|many|long)|token/i.test(msg)) {
    return {
      kind: "data",
      hint: "The training data was refused: check the dataset's TRAIN entries (enough of them, each ending with the answer to learn, within the model's length), then retry.",
    };
  }
  if (/not supported|unsupported|unknown|not found|not available|invalid|hyperparameter|\b400\b|\b404\b|\b422\b/i.test(msg)) {
    return {
      kind: "backend",
      hint: `${backend} would not train this: check that it fine-tunes the base model with these settings (its own documentation), then retry or make a new model.`,
    };
  }
  return { kind: "unknown", hint: `${backend} gave this reason. If it was passing (an outage), retry.` };
}
