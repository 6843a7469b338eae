import { createReadStream, existsSync } from "node:fs";
import { and, asc, eq } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { adapterServings, customProviders, models } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { ArtifactPath, ServingReportInput, type ServingPlan } from "./schemas";
import { artifactDir } from "./internal";

/** Adapters one vLLM server is asked to hold, at most (the newest first past it). */
export const MAX_SERVED_ADAPTERS = 500;
/** How often `hone-trainer sync` is asked to report (the gateway trusts a report for 180 s). */
const SYNC_INTERVAL_SECONDS = 30;

const root = (url: string) => url.replace(/\/+$/, "").replace(/\/v1$/, "");

type ProviderRow = { id: string; slug: string; baseUrl: string; baseModel: string | null };

/**
 * The custom provider (kind vllm) a sync speaks for: the one it names; else the one whose base URL
 * is the server's; else the only one whose base model the server serves.
 */
async function reportedProvider(ctx: Ctx, input: ServingReportInput): Promise<ProviderRow & { baseModel: string }> {
  const rows = await dbOf(ctx)
    .select({
      id: customProviders.id,
      slug: customProviders.slug,
      kind: customProviders.kind,
      baseUrl: customProviders.baseUrl,
      baseModel: customProviders.baseModel,
    })
    .from(customProviders)
    .where(eq(customProviders.projectId, ctx.projectId))
    .orderBy(asc(customProviders.slug));
  const vllm = rows.filter((r): r is typeof r & { baseModel: string } => r.kind === "vllm" && r.baseModel !== null);
  if (input.provider) {
    const named = rows.find((r) => r.slug === input.provider);
    if (!named) throw notFound("Custom provider", input.provider);
    const found = vllm.find((r) => r.slug === input.provider);
    if (!found)
      throw new DomainError("VALIDATION", `Custom provider ${input.provider} is of kind ${named.kind}, not vllm`, {
        issues: [{ message: "not a vllm provider", path: ["provider"] }],
      });
    return found;
  }
  const byUrl = vllm.filter((r) => root(r.baseUrl) === root(input.vllmUrl));
  if (byUrl.length === 1) return byUrl[0]!;
  const bases = new Set((input.served ?? []).filter((m) => !m.parent).flatMap((m) => [m.id, m.root ?? m.id]));
  const byBase = vllm.filter((r) => bases.has(r.baseModel));
  if (byBase.length === 1) return byBase[0]!;
  const serves = bases.size ? ` (it serves ${[...bases].join(", ")})` : "";
  throw new DomainError(
    "VALIDATION",
    byBase.length > 1
      ? `Several custom providers of kind vllm serve the base of vLLM at ${input.vllmUrl}${serves}: pass --provider (one of ${byBase.map((r) => r.slug).join(", ")})`
      : `No custom provider of kind vllm matches vLLM at ${input.vllmUrl}${serves}: add one (kind vllm, its baseUrl as Hone reaches the server, baseModel the model it serves) or pass --provider`,
    { issues: [{ message: "no matching vllm provider", path: ["provider"] }] },
  );
}

/**
 * A sync's report: what the vLLM server behind a custom provider has loaded (the gateway routes by
 * it) and its last error; the answer is what it should hold: every DEPLOYED adapter of the
 * project's trainer models of the provider's base model.
 */
export async function reportServing(ctx: Ctx, raw: ServingReportInput): Promise<ServingPlan> {
  const input = parseInput(ServingReportInput, raw);
  const provider = await reportedProvider(ctx, input);
  const loaded = [...new Set(input.served.filter((m) => m.parent).map((m) => m.id))];
  const values = {
    projectId: ctx.projectId,
    keyId: ctx.actor.type === "apiKey" ? ctx.actor.keyId : null,
    host: input.host ?? null,
    vllmUrl: input.vllmUrl,
    loaded,
    error: input.error ?? null,
    reportedAt: ctx.deps.clock(),
  };
  await dbOf(ctx)
    .insert(adapterServings)
    .values({ providerId: provider.id, ...values })
    .onConflictDoUpdate({ target: adapterServings.providerId, set: values });
  const rows = await dbOf(ctx)
    .select({ id: models.id, slug: models.slug, files: models.resultFiles })
    .from(models)
    .where(and(eq(models.projectId, ctx.projectId), eq(models.backend, "trainer"), eq(models.status, "DEPLOYED"), eq(models.baseModel, provider.baseModel)))
    .orderBy(asc(models.createdAt))
    .limit(MAX_SERVED_ADAPTERS * 2);
  const adapters = rows
    .map((r) => ({
      name: r.id,
      slug: r.slug,
      files: (r.files ?? []).filter((f) => f.path.startsWith("adapter/")).map((f) => ({ ...f, path: f.path.slice("adapter/".length) })),
    }))
    .filter((a) => a.files.length > 0)
    .slice(-MAX_SERVED_ADAPTERS);
  return { provider: { slug: provider.slug, baseModel: provider.baseModel }, adapters, intervalSeconds: SYNC_INTERVAL_SECONDS };
}

/** A file of a DEPLOYED adapter (`name` is the model's id), for `hone-trainer sync` to load into vLLM. */
export async function readAdapterFile(ctx: Ctx, name: string, rawPath: string): Promise<{ stream: ReadableStream; bytes: number; sha256: string }> {
  const path = parseInput(ArtifactPath, rawPath);
  const [row] = await dbOf(ctx)
    .select({ id: models.id, status: models.status, files: models.resultFiles })
    .from(models)
    .where(and(eq(models.projectId, ctx.projectId), eq(models.id, name.slice(0, 200)), eq(models.backend, "trainer")));
  if (row?.status !== "DEPLOYED") throw notFound("Adapter", name);
  const listed = row.files?.find((f) => f.path === `adapter/${path}`);
  const file = `${artifactDir(ctx, row.id, "result")}/adapter/${path}`;
  if (!listed || !existsSync(file)) throw notFound("Adapter file", path);
  return { stream: createReadStream(file) as unknown as ReadableStream, bytes: listed.bytes, sha256: listed.sha256 };
}
