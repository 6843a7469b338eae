import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import {
  addDatasetEntries,
  createDataset,
  deleteDataset,
  listDatasets,
} from "../../domain/datasets";
import { authenticateRequest } from "../auth";
import { readJsonBody } from "./body";
import { asObject, datasetToWire, deletedToWire, entriesCreationToWire, listToWire } from "./wire";

export function datasetsRoutes(deps: Deps) {
  const max = deps.config.maxBodyBytes;
  return new Elysia({ name: "rest-datasets" })
    .get("/datasets", async ({ request }) => {
      const ctx = await authenticateRequest(deps, request);
      return listToWire((await listDatasets(ctx)).map(datasetToWire));
    })
    .post(
      "/datasets",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        const body = asObject(await readJsonBody(request, max));
        return datasetToWire(await createDataset(ctx, body as { name: string }));
      },
      { parse: "none" },
    )
    .delete("/datasets/:datasetId", async ({ request, params }) => {
      const ctx = await authenticateRequest(deps, request);
      const { id } = await deleteDataset(ctx, { datasetId: params.datasetId });
      return deletedToWire(id, "dataset");
    })
    .post(
      "/datasets/:datasetId/entries",
      async ({ request, params }) => {
        const ctx = await authenticateRequest(deps, request);
        const body = asObject(await readJsonBody(request, max));
        const result = await addDatasetEntries(ctx, { ...body, datasetId: params.datasetId } as never);
        return entriesCreationToWire(result);
      },
      { parse: "none" },
    );
}
