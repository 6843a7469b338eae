import { z } from "zod";
import type { AddDatasetEntriesResult, Dataset } from "../../domain/datasets";
import { DomainError } from "../../core/errors";

// Domain objects -> the REST wire of SPEC.md (snake_case members, `object` tags, ISO 8601 times).

export function datasetToWire(d: Dataset) {
  return {
    object: "dataset" as const,
    id: d.id,
    name: d.name,
    created: d.createdAt.toISOString(),
    updated: d.updatedAt.toISOString(),
    dataset_entry_count: d.entryCount,
    fine_tune_count: d.fineTuneCount,
  };
}

export function entriesCreationToWire(r: AddDatasetEntriesResult) {
  return {
    object: "dataset.entries.creation" as const,
    entries_created: r.entriesCreated,
    errors: {
      object: "list" as const,
      data: r.errors.map((e) => ({
        object: "dataset.entries.creation.error" as const,
        entry_index: e.entryIndex,
        message: e.message,
      })),
    },
  };
}

export function listToWire<T>(data: T[]) {
  return { object: "list" as const, data };
}

/** The query parameters of a paged REST list: `limit` (default and ceiling HONE_MAX_PAGE_SIZE) and `after` (the last id seen). */
export const PAGE_QUERY = {
  limit: { schema: z.string(), description: "items per page, 1 to HONE_MAX_PAGE_SIZE (default: that maximum)" },
  after: { schema: z.string(), description: "the last id of the previous page: the next, older items" },
};

/** `limit` and `after` as the list verbs take them; a bad or too large limit is a 400 naming it. */
export function pageOfQuery(query: { limit?: string; after?: string }, maxPageSize: number): { first: number; after: string | null } {
  const raw = query.limit;
  const first = raw ? Number(raw) : maxPageSize;
  if (!Number.isInteger(first) || first < 1 || first > maxPageSize) {
    const message = `limit: must be a whole number from 1 to ${maxPageSize} (HONE_MAX_PAGE_SIZE), got ${JSON.stringify(raw)}`;
    throw new DomainError("VALIDATION", message, { issues: [{ message, path: ["limit"] }] });
  }
  return { first, after: query.after || null };
}

/** A page of a REST list: `has_more` when the page is full (the next one may still be empty). */
export function pageToWire<T>(data: T[], first: number) {
  return { object: "list" as const, data, has_more: data.length >= first };
}

export function deletedToWire(id: string, object: "dataset" | "model") {
  return { id, object, deleted: true as const };
}

/** REST bodies are JSON objects; anything else is a validation error naming what arrived. */
export function asObject(body: unknown): Record<string, unknown> {
  if (body !== null && typeof body === "object" && !Array.isArray(body)) return body as Record<string, unknown>;
  throw new DomainError("VALIDATION", "Input validation failed", {
    issues: [{ message: `request body must be a JSON object, got ${Array.isArray(body) ? "an array" : body === null ? "null" : typeof body}` }],
  });
}
