import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { createFineTune, createModel, deleteModel, findBaseModel, getModel, listModels, type Model } from "../../domain/models";
import { authenticateRequest } from "../auth";
import { readJsonBody } from "./body";
import { asObject, deletedToWire, listToWire } from "./wire";

/** The Model object of the spec; `id` is the slug, so the openai SDK's models.retrieve(slug) works. */
export function modelToWire(m: Model) {
  const base = findBaseModel(m.baseModel);
  return {
    id: m.slug,
    name: m.slug,
    object: "model" as const,
    description: m.description ?? `${m.baseModel} fine-tuned on ${m.datasetId ?? "a deleted dataset"}`,
    created: m.createdAt.toISOString(),
    updated: m.updatedAt.toISOString(),
    hone: { baseModel: m.baseModel, hyperparameters: m.hyperparameters, status: m.status, datasetId: m.datasetId, errorMessage: m.errorMessage },
    contextWindow: base?.contextWindow ?? null,
    maxCompletionTokens: base?.maxCompletionTokens ?? null,
    capabilities: base?.capabilities ?? ["chat"],
    pricing: base?.pricing ?? null,
    owned_by: "project",
  };
}

export function modelsRoutes(deps: Deps) {
  const body = async (request: Request) => asObject(await readJsonBody(request, deps.config.maxBodyBytes));
  return new Elysia({ name: "rest-models" })
    .get("/models", async ({ request }) => listToWire((await listModels(await authenticateRequest(deps, request))).map(modelToWire)))
    .post(
      "/models",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        return modelToWire(await createModel(ctx, (await body(request)) as never));
      },
      { parse: "none" },
    )
    .get("/models/:modelSlug", async ({ request, params }) => modelToWire(await getModel(await authenticateRequest(deps, request), { slug: params.modelSlug })))
    .delete("/models/:modelSlug", async ({ request, params }) => {
      const { id } = await deleteModel(await authenticateRequest(deps, request), { slug: params.modelSlug });
      return deletedToWire(id, "model");
    })
    .post(
      "/unstable/finetune/create",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        return createFineTune(ctx, (await body(request)) as never);
      },
      { parse: "none" },
    );
}
