import type { AlignmentStats } from "./schemas";

const RECOMMENDED_LABELLED_ROWS = 30;

/**
 * Confusion counts and precision / recall / F1 with FAIL as the positive class, over rows that
 * have both a human label and a judge verdict. A ratio with a zero denominator is null.
 */
export function computeAlignmentStats(
  version: number,
  pairs: { human: "PASS" | "FAIL" | null; judge: "PASS" | "FAIL" | null }[],
  judgeErrors: number,
): AlignmentStats {
  let tp = 0,
    fp = 0,
    fn = 0,
    tn = 0;
  for (const { human, judge } of pairs) {
    if (!human || !judge) continue;
    if (judge === "FAIL" && human === "FAIL") tp++;
    else if (judge === "FAIL" && human === "PASS") fp++;
    else if (judge === "PASS" && human === "FAIL") fn++;
    else tn++;
  }
  const precision = tp + fp ? tp / (tp + fp) : null;
  const recall = tp + fn ? tp / (tp + fn) : null;
  const f1 =
    precision !== null && recall !== null && precision + recall > 0
      ? (2 * precision * recall) / (precision + recall)
      : precision === 0 || recall === 0
        ? 0
        : null;
  const rows = tp + fp + fn + tn;
  return {
    version,
    rows,
    precision,
    recall,
    f1,
    truePositives: tp,
    falsePositives: fp,
    falseNegatives: fn,
    trueNegatives: tn,
    judgeErrors,
    warning:
      rows < RECOMMENDED_LABELLED_ROWS
        ? `Only ${rows} labelled rows were judged; at least ${RECOMMENDED_LABELLED_ROWS} are recommended for meaningful statistics`
        : null,
  };
}
