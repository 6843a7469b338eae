import type { RouterOutputs } from "../../lib/trpc";

export type Usage = RouterOutputs["logs"]["usage"];
export type UsageGroupRow = Usage["groups"][number];
export type Figures = Usage["totals"];
export type GroupBy = "none" | "model" | "provider" | "source" | "api" | "tag" | "route" | "routeVersion";

/** Series colours, distinct in both themes; cycled past the 21 groups a split can have. */
export const PALETTE = [
  "indigo.6",
  "teal.6",
  "orange.6",
  "grape.6",
  "cyan.6",
  "pink.6",
  "lime.7",
  "blue.6",
  "red.6",
  "yellow.7",
  "violet.6",
  "green.7",
  "indigo.3",
  "teal.3",
  "orange.3",
  "grape.3",
  "cyan.3",
  "pink.3",
  "lime.4",
  "blue.3",
  "gray.6",
];

/** How a group is named to a person: no value recorded, or the fold of the groups past the top 20. */
export function groupLabel(group: { group: string | null; other: boolean }, split: GroupBy, tagKey: string): string {
  if (group.other) return "other (past the top 20)";
  if (group.group !== null && group.group !== "") return group.group;
  if (split === "route" || split === "routeVersion") return "(no route)";
  return split === "tag" ? `(no ${tagKey})` : `(no ${split})`;
}

/** A stable chart key per group (group values may hold dots, which chart libraries read as paths). */
export const groupKey = (group: { group: string | null; other: boolean }) => (group.other ? "\u0000other" : (group.group ?? "\u0000null"));
