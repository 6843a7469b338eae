import { Anchor } from "@mantine/core";
import { useRouter } from "@tanstack/react-router";
import type { ReactNode } from "react";

/**
 * The Logs page showing an evaluation's calls: its models' answers and its judges' verdicts are
 * Hone's own calls (shown with internal=1), tagged hone.evaluation=<id>.
 */
export const evaluationLogsUrl = (evaluationId: string) => `/logs?internal=1&tag=${encodeURIComponent(`hone.evaluation=${evaluationId}`)}`;

/** A link to the evaluation's logs: followed in the console (no reload), or opened in a new tab. */
export function EvaluationLogsLink({ evaluationId, children }: { evaluationId: string; children: ReactNode }) {
  const router = useRouter();
  const url = evaluationLogsUrl(evaluationId);
  return (
    <Anchor
      href={url}
      size="xs"
      data-testid="evaluation-logs-link"
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        router.history.push(url);
      }}
    >
      {children}
    </Anchor>
  );
}
