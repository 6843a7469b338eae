import type { MonitorFilter } from "./queries";

type Pair = { key: string; equals: string };

/** A monitor's filter in a few words: "model gpt-4o-mini · feature = billing · contains “refund”". */
export function describeFilter(f: MonitorFilter | Record<string, unknown>): string {
  const x = f as Record<string, unknown>;
  const parts: string[] = [];
  const not = (x.not ?? {}) as Record<string, unknown>;
  if (x.model) parts.push(`model ${x.model}`);
  if (not.model) parts.push(`model is not ${not.model}`);
  if (x.statusCode != null) parts.push(`status ${x.statusCode}`);
  if (x.statusClass) parts.push(`status ${x.statusClass}`);
  if (x.source) parts.push(`source ${x.source}`);
  if (x.api) parts.push(`${x.api} API`);
  if (x.provider) parts.push(`provider ${x.provider}`);
  if (x.route) parts.push(`route ${x.route}${x.routeVersion ? ` v${x.routeVersion}` : ""}`);
  if (x.completionId) parts.push(`completion ${x.completionId}`);
  for (const p of ((x.tags ?? x.metadata) as Pair[] | undefined) ?? []) parts.push(`${p.key} = ${p.equals}`);
  for (const p of ((x.tagsNot ?? x.metadataNot) as Pair[] | undefined) ?? []) parts.push(`${p.key} ≠ ${p.equals}`);
  for (const k of (x.tagsAbsent as string[] | undefined) ?? []) parts.push(`no ${k} tag`);
  if (x.search) parts.push(`contains “${x.search}”`);
  if (x.internal === true) parts.push("Hone's own calls");
  return parts.length ? parts.join(" · ") : "every answered call";
}
