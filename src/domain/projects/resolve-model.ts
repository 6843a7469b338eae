import type { Actor } from "../context";
import { requireModelAllowed } from "./key-scopes";
import { DomainError } from "../../core/errors";

export type ModelRoute =
  | { provider: "openai" | "anthropic" | "gemini"; upstreamModel: string }
  | { provider: "custom"; slug: string; upstreamModel: string }
  | { provider: "hone"; prefix: string; slug: string };

/**
 * Reads a model string (CONTRACT.md Naming): `openai:`, `anthropic:`, `gemini:`, the service's
 * own prefixes for fine-tunes (`hone:<slug>`) and custom providers (`hone:<provider>/<model>`),
 * and bare names, which mean OpenAI (including OpenAI fine-tune ids such as `ft:gpt-4o-mini:…`).
 */
export function resolveModel(model: string, ownPrefixes: string[]): ModelRoute {
  const colon = model.indexOf(":");
  if (colon < 0 || model.startsWith("ft:")) return { provider: "openai", upstreamModel: model };
  const prefix = model.slice(0, colon);
  const rest = model.slice(colon + 1);
  if (!rest) throw invalid(model, `nothing follows \`${prefix}:\``);
  if (ownPrefixes.includes(prefix)) {
    const slash = rest.indexOf("/");
    if (slash < 0) return { provider: "hone", prefix, slug: rest };
    const slug = rest.slice(0, slash);
    const upstreamModel = rest.slice(slash + 1);
    if (!slug || !upstreamModel) throw invalid(model, `expected \`${prefix}:<custom-provider>/<model>\``);
    return { provider: "custom", slug, upstreamModel };
  }
  if (prefix === "openai" || prefix === "anthropic" || prefix === "gemini") return { provider: prefix, upstreamModel: rest };
  throw invalid(
    model,
    `unknown provider prefix \`${prefix}:\`; use openai:, anthropic:, gemini:, ${ownPrefixes[0]}:<fine-tune> or ${ownPrefixes[0]}:<custom-provider>/<model>`,
  );
}

function invalid(model: string, why: string): DomainError {
  return new DomainError("VALIDATION", `Invalid model \`${model}\`: ${why}`, { issues: [{ message: why, path: ["model"] }] });
}

/**
 * The one spelling of a model string that logs, filters and usage use: `provider:model`. A bare
 * name is `openai:<name>` on the gateway and in OpenAI-format reports (`anthropic:<name>` in
 * Anthropic reports: pass the default), an alias of the project's own prefix (`openpipe:x`) is the
 * first prefix (`hone:x`), and anything else (an unknown prefix in a report) is kept as it is.
 */
export function canonicalModel(model: string, ownPrefixes: readonly string[], bare: "openai" | "anthropic" = "openai"): string {
  const colon = model.indexOf(":");
  if (colon < 0 || model.startsWith("ft:")) return `${bare}:${model}`;
  const prefix = model.slice(0, colon);
  if (ownPrefixes.includes(prefix) && prefix !== ownPrefixes[0]) return `${ownPrefixes[0]}:${model.slice(colon + 1)}`;
  return model;
}

/**
 * FORBIDDEN unless the acting key may call each model (its allowed models): for work that calls
 * models on the key's behalf later (an evaluation, a relabel run, a judge, the playground), checked
 * when it is asked for.
 */
export function requireKeyMayCall(ctx: { actor: Actor; deps: { config: { modelPrefixes: string[] } } }, models: readonly (string | null | undefined)[]): void {
  for (const m of models) if (m) requireModelAllowed(ctx.actor, m, canonicalModel(m, ctx.deps.config.modelPrefixes));
}
