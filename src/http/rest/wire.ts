import type { AddDatasetEntriesResult, Dataset } from "../../domain/datasets";
import { DomainError } from "../../errors";

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
