import type { Ctx } from "../context";
import { readOrKnown } from "../../db/read-or-known";
import { DomainError } from "../../core/errors";
import type { ChatUpstream, UpstreamTarget } from "../../providers";
import { adapterServers, findBaseModel, findModelRow, type ModelRow, SERVING_FRESH_SECONDS } from "../models";
import { DEFAULT_KEY_NAME, getCustomProvider, getProviderApiKey, getProviderKeyPool } from "../projects";
import type { ModelRoute } from "../projects";
import type { ChatCompletionRequest } from "./schemas";
import { pruneMessages } from "../pruning";

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
  /** A fine-tune trained with pruning rules: their text is removed from the request's prompt before it goes upstream. */
  pruningRules?: string[];
  /** The tokens of each rule's text, counted when the fine-tune trained (null for one trained before they were). */
  pruningRuleTokens?: number[] | null;
  /** With a key pool: the key this upstream calls with, and the pool's keys (name and weight). */
  key?: string;
  pool?: { name: string; weight: number }[];
};

/**
 * The client, target and pricing of the upstream a resolved model string names. A provider with a
 * key pool is called with the key named (`keyName`), else its default key; `pool` then lists the
 * pool's keys, for the routing that spreads calls over them.
 */
export async function resolveUpstream(ctx: Ctx, route: ModelRoute, keyName?: string): Promise<Upstream> {
  const { config, upstreams } = ctx.deps;
  switch (route.provider) {
    case "openai":
    case "gemini":
    case "anthropic": {
      const pool = await getProviderKeyPool(ctx, route.provider);
      const key = keyName === undefined ? (pool.find((k) => k.name === DEFAULT_KEY_NAME) ?? pool[0]!) : pool.find((k) => k.name === keyName);
      if (!key) throw new DomainError("NOT_FOUND", `No ${route.provider} key named ${keyName} is stored for this project`);
      const apiKey = key.apiKey;
      const target: UpstreamTarget =
        route.provider === "openai"
          ? { kind: "openai", label: "OpenAI", baseUrl: config.openaiBaseUrl, apiKey }
          : route.provider === "gemini"
            ? { kind: "openai", label: "Gemini", baseUrl: config.geminiBaseUrl, apiKey }
            : { kind: "anthropic", label: "Anthropic", baseUrl: config.anthropicBaseUrl, apiKey };
      return {
        client: upstreams(target),
        provider: route.provider,
        target: route.provider,
        upstreamModel: route.upstreamModel,
        base64Embeddings: route.provider === "openai",
        ...(pool.length > 1 ? { key: key.name, pool: pool.map((k) => ({ name: k.name, weight: k.weight })) } : {}),
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
      const model = await fineTuneRow(ctx, route.slug);
      if (!model) throw new DomainError("NOT_FOUND", `The model \`${name}\` does not exist`);
      if (model.backend === "trainer" && model.status === "DEPLOYED") return adapterUpstream(ctx, model, name);
      if (model.status !== "DEPLOYED" || !model.upstreamModelId || model.backend === "trainer") {
        throw new DomainError(
          "CONFLICT",
          `The model \`${name}\` is not deployed yet (status ${model.status})${model.errorMessage ? `: ${model.errorMessage}` : ""}`,
        );
      }
      const apiKey = await getProviderApiKey(ctx, model.backend);
      const target: UpstreamTarget =
        model.backend === "openai"
          ? { kind: "openai", label: "OpenAI", baseUrl: config.openaiBaseUrl, apiKey }
          : model.backend === "fireworks"
            ? { kind: "openai", label: "Fireworks", baseUrl: `${config.fireworksBaseUrl}/inference/v1`, apiKey }
            : { kind: "openai", label: "Together", baseUrl: config.togetherBaseUrl, apiKey };
      return {
        client: upstreams(target),
        provider: "hone",
        target: `hone:${model.id}`,
        upstreamModel: model.upstreamModelId,
        pricing: findBaseModel(model.baseModel)?.pricing,
        echoModel: name,
        ...(model.pruningRules?.length ? { pruningRules: model.pruningRules, pruningRuleTokens: model.pruningRuleTokens ?? null } : {}),
      };
    }
  }
}

/** How long a process routes by the servers it read for an adapter (a server gone stale is left within it). */
const ADAPTER_SERVERS_TTL_MS = 5_000;

/**
 * A trainer's adapter, served by a vLLM server of its base model whose `hone-trainer sync` reported
 * it loaded within SERVING_FRESH_SECONDS (one of them at random when several do). Priced by the
 * project's price for `hone:<slug>` (per token or per hour), else logged with no price.
 */
async function adapterUpstream(ctx: Ctx, model: ModelRow, name: string): Promise<Upstream> {
  const weights = `download its weights (GET /api/v1/models/${model.slug}/weights)`;
  if (!model.resultFiles?.some((f) => f.path.startsWith("adapter/"))) {
    throw new DomainError(
      "CONFLICT",
      `The model \`${name}\` is a full fine-tune, not a LoRA adapter: ${weights} and serve it with \`vllm serve\` behind a custom provider`,
    );
  }
  // Where it is loaded is kept for a few seconds (a call does not wait on two reads); where it is
  // not, read on every call, so an adapter just loaded answers at once.
  const key = `${ctx.projectId}\u0000${model.id}`;
  const now = ctx.deps.clock().getTime();
  const kept = ctx.deps.caches.adapterServers.get(key);
  const servers =
    kept && kept.expires > now
      ? { value: kept.value }
      : await readOrKnown(ctx.deps.database, () => adapterServers(ctx, model.id, model.baseModel), { value: [] });
  const serving = servers.value.filter((s) => s.loaded && s.fresh);
  if (serving.length && !(kept && kept.expires > now)) {
    if (ctx.deps.caches.adapterServers.size >= 10_000) ctx.deps.caches.adapterServers.clear();
    ctx.deps.caches.adapterServers.set(key, { value: servers.value, expires: now + ADAPTER_SERVERS_TTL_MS });
  }
  if (!serving.length) {
    if (!servers.value.length) {
      throw new DomainError(
        "CONFLICT",
        `The model \`${name}\` is not served: no custom provider of kind vllm serves its base model ${model.baseModel}. ` +
          `Run \`vllm serve ${model.baseModel} --enable-lora\` (with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True), add it as a custom provider (kind vllm, baseModel ${model.baseModel}), ` +
          `and run \`hone-trainer sync\` beside it; or ${weights}`,
      );
    }
    const said = servers.value
      .map(
        (s) =>
          `${s.slug}: ${s.reportedAt ? `${s.fresh ? "reported" : "last reported"} ${s.reportedAt.toISOString()}${s.error ? ` (${s.error})` : ""}` : "never reported"}`,
      )
      .join("; ");
    throw new DomainError(
      "UNAVAILABLE",
      `The model \`${name}\` is not loaded on any vLLM server of its base model in the last ${SERVING_FRESH_SECONDS} s (${said}): is \`hone-trainer sync\` running beside it?`,
      { retryAfterSeconds: 30 },
    );
  }
  const pick = serving[Math.floor(Math.random() * serving.length)]!;
  const cp = await getCustomProvider(ctx, pick.slug);
  return {
    client: ctx.deps.upstreams({ kind: "openai", label: `vLLM ${cp.slug}`, baseUrl: cp.baseUrl, apiKey: cp.apiKey, tenantChosen: true }),
    provider: "hone",
    target: `hone:${model.id}`,
    upstreamModel: model.id,
    echoModel: name,
  };
}

/** Fine-tunes kept per process as last read, at most (the oldest go first). */
const MAX_KNOWN_FINE_TUNES = 10_000;

/**
 * A fine-tune's row, read on every call (its status moves); while the database is unreachable,
 * the row as this process last read it, so a deployed fine-tune keeps serving through an outage.
 */
async function fineTuneRow(ctx: Ctx, slug: string): Promise<Awaited<ReturnType<typeof findModelRow>>> {
  const known = ctx.deps.caches.fineTunes;
  const key = `${ctx.projectId}\u0000${slug}`;
  type Row = Awaited<ReturnType<typeof findModelRow>>;
  const read = await readOrKnown(ctx.deps.database, () => findModelRow(ctx, slug), known.has(key) ? { value: known.get(key) as Row } : undefined);
  if (!read.fresh) return read.value;
  const row = read.value;
  known.delete(key);
  if (row) {
    if (known.size >= MAX_KNOWN_FINE_TUNES) known.delete(known.keys().next().value!);
    known.set(key, row);
  }
  return row;
}

/**
 * The body sent upstream: Hone's own member removed, members the upstream would reject dropped.
 * `onPruned` hears the tokens a fine-tune's pruning rules removed (when their count is known).
 */
export function upstreamBody(request: ChatCompletionRequest, up: Upstream, stream: boolean, onPruned?: (tokens: number) => void): Record<string, unknown> {
  const { hone: _controls, ...rest } = request;
  const body: Record<string, unknown> = { ...rest, model: up.upstreamModel };
  // OpenAI accepts metadata only for stored completions; Hone keeps metadata on its own log.
  if (body.store !== true || up.provider === "gemini") delete body.metadata;
  if (up.provider === "gemini") delete body.store;
  if (!stream) delete body.stream_options;
  // A fine-tune trained without the rules' text is asked without it too.
  if (up.pruningRules?.length && Array.isArray(body.messages)) {
    const pruned = pruneMessages(body.messages, up.pruningRules);
    body.messages = pruned.messages;
    const perRule = up.pruningRuleTokens;
    if (onPruned && perRule) onPruned(pruned.removed.reduce((sum, n, i) => sum + n * (perRule[i] ?? 0), 0));
  }
  return body;
}

/** A fine-tune answers as hone:<slug>, not as the backend's model id. */
export function answeredAs<T extends { model: string }>(up: Upstream, x: T): T {
  return up.echoModel ? { ...x, model: up.echoModel } : x;
}
