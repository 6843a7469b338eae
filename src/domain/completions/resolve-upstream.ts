import type { Ctx } from "../../context";
import { DomainError } from "../../errors";
import type { ChatUpstream, UpstreamTarget } from "../../providers";
import { findBaseModel } from "../models/catalogue";
import { findModelRow } from "../models/internal";
import { getCustomProvider, getProviderApiKey } from "../projects";
import type { ModelRoute } from "./resolve-model";
import type { ChatCompletionRequest } from "./schemas";

/**
 * `target` names the upstream for the cache key (the provider, or the custom provider's or
 * fine-tune's id). A fine-tune is priced from its catalogue entry, and answers under its own name.
 */
export type Upstream = {
  client: ChatUpstream;
  provider: string;
  target: string;
  upstreamModel: string;
  pricing?: { chatIn: number; chatOut: number };
  echoModel?: string;
  /**
   * OpenAI's own API or Azure OpenAI: asked for embeddings in base64 (a quarter of the bytes of
   * JSON numbers). Other compatible servers (Gemini's, vLLM, llama.cpp, ...) get their default, float.
   */
  base64Embeddings?: boolean;
};

/** The client, target and pricing of the upstream a resolved model string names. */
export async function resolveUpstream(ctx: Ctx, route: ModelRoute): Promise<Upstream> {
  const { config, upstreams } = ctx.deps;
  switch (route.provider) {
    case "openai":
    case "gemini": {
      const apiKey = await getProviderApiKey(ctx, route.provider);
      const target: UpstreamTarget =
        route.provider === "openai"
          ? { kind: "openai", label: "OpenAI", baseUrl: config.openaiBaseUrl, apiKey }
          : { kind: "openai", label: "Gemini", baseUrl: config.geminiBaseUrl, apiKey };
      return {
        client: upstreams(target),
        provider: route.provider,
        target: route.provider,
        upstreamModel: route.upstreamModel,
        base64Embeddings: route.provider === "openai",
      };
    }
    case "anthropic": {
      const apiKey = await getProviderApiKey(ctx, "anthropic");
      return {
        client: upstreams({ kind: "anthropic", label: "Anthropic", baseUrl: config.anthropicBaseUrl, apiKey }),
        provider: "anthropic",
        target: "anthropic",
        upstreamModel: route.upstreamModel,
      };
    }
    case "custom": {
      const cp = await getCustomProvider(ctx, route.slug);
      const label = `custom provider ${cp.slug}`;
      const target: UpstreamTarget =
        cp.kind === "azure"
          ? {
              kind: "azure",
              label,
              baseUrl: cp.baseUrl,
              apiKey: cp.apiKey,
              apiVersion: cp.apiVersion ?? "",
              deployment: route.upstreamModel,
              tenantChosen: true,
            }
          : { kind: "openai", label, baseUrl: cp.baseUrl, apiKey: cp.apiKey, tenantChosen: true };
      return {
        client: upstreams(target),
        provider: "custom",
        target: `custom:${cp.id}`,
        upstreamModel: route.upstreamModel,
        base64Embeddings: cp.kind === "azure",
      };
    }
    case "hone": {
      const name = `${route.prefix}:${route.slug}`;
      const model = await findModelRow(ctx, route.slug);
      if (!model) throw new DomainError("NOT_FOUND", `The model \`${name}\` does not exist`);
      if (model.status !== "DEPLOYED" || !model.upstreamModelId) {
        throw new DomainError(
          "CONFLICT",
          `The model \`${name}\` is not deployed yet (status ${model.status})${model.errorMessage ? `: ${model.errorMessage}` : ""}`,
        );
      }
      const apiKey = await getProviderApiKey(ctx, model.backend);
      const target: UpstreamTarget =
        model.backend === "openai"
          ? { kind: "openai", label: "OpenAI", baseUrl: config.openaiBaseUrl, apiKey }
          : { kind: "openai", label: "Together", baseUrl: config.togetherBaseUrl, apiKey };
      return {
        client: upstreams(target),
        provider: "hone",
        target: `hone:${model.id}`,
        upstreamModel: model.upstreamModelId,
        pricing: findBaseModel(model.baseModel)?.pricing,
        echoModel: name,
      };
    }
  }
}

/** The body sent upstream: Hone's own member removed, members the upstream would reject dropped. */
export function upstreamBody(request: ChatCompletionRequest, up: Upstream, stream: boolean): Record<string, unknown> {
  const { hone: _controls, ...rest } = request;
  const body: Record<string, unknown> = { ...rest, model: up.upstreamModel };
  // OpenAI accepts metadata only for stored completions; Hone keeps metadata on its own log.
  if (body.store !== true || up.provider === "gemini") delete body.metadata;
  if (up.provider === "gemini") delete body.store;
  if (!stream) delete body.stream_options;
  return body;
}

/** A fine-tune answers as hone:<slug>, not as the backend's model id. */
export function answeredAs<T extends { model: string }>(up: Upstream, x: T): T {
  return up.echoModel ? { ...x, model: up.echoModel } : x;
}
