import { z } from "zod";
import { LogFilter } from "../domain/logs";
import { DomainError } from "../core/errors";

// The public wire (REST and GraphQL) spells a log's tags as OpenPipe does, `metadata`; the domain's
// word is tags. A filter's tag pairs are `metadata` / `metadataNot` on the wire and `tags` /
// `tagsNot` in the domain (tRPC, an internal interface, speaks the domain's words).

const WIRE_NAMES: Record<string, string> = { tags: "metadata", tagsNot: "metadataNot" };
type Shape = typeof LogFilter.shape;
type WireShape = Omit<Shape, "tags" | "tagsNot"> & { metadata: Shape["tags"]; metadataNot: Shape["tagsNot"] };

/** The REST wire's LogFilter: the domain's, each tag field renamed in its place (the document's order kept). */
export const LogFilterWire = z.strictObject(Object.fromEntries(Object.entries(LogFilter.shape).map(([k, v]) => [WIRE_NAMES[k] ?? k, v])) as WireShape);

type WireTagPairs = { metadata?: unknown; metadataNot?: unknown; tags?: unknown; tagsNot?: unknown };

/**
 * A wire filter (REST's or GraphQL's) as the domain's LogFilter input: its tag pairs renamed.
 * GraphQL also takes the domain's own words (`tags`, `tagsNot`), as tRPC does; `metadata` stays
 * as a deprecated alias. Both words at once is a 400, never one silently winning.
 */
export function domainLogFilter<F extends WireTagPairs>(
  filter: F | null | undefined,
): (Omit<F, "metadata" | "metadataNot" | "tags" | "tagsNot"> & { tags?: unknown; tagsNot?: unknown }) | null | undefined {
  if (!filter) return filter;
  const { metadata, metadataNot, tags: ownTags, tagsNot: ownTagsNot, ...rest } = filter;
  bothWords(ownTags, metadata, "tags", "metadata");
  bothWords(ownTagsNot, metadataNot, "tagsNot", "metadataNot");
  const tags = ownTags ?? metadata;
  const tagsNot = ownTagsNot ?? metadataNot;
  return { ...rest, ...(tags !== undefined ? { tags } : {}), ...(tagsNot !== undefined ? { tagsNot } : {}) };
}

/** A domain filter (as stored) in the wire's words: its tag pairs as metadata and metadataNot. */
export function wireLogFilter(filter: Record<string, unknown>): Record<string, unknown> {
  const { tags, tagsNot, ...rest } = filter;
  return { ...rest, ...(tags != null ? { metadata: tags } : {}), ...(tagsNot != null ? { metadataNot: tagsNot } : {}) };
}

function bothWords(given: unknown, alias: unknown, name: string, old: string): void {
  if (given == null || alias == null) return;
  throw new DomainError("VALIDATION", `The filter gives both ${name} and ${old}: they are one field (${old} is its old name); give ${name} only`, {
    issues: [{ message: `give ${name} or ${old}, not both`, path: ["filter", old] }],
  });
}
