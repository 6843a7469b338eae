import { and, desc, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { adapterServings, customProviders } from "../../db/schema";

/**
 * A report older than this is not trusted to route by: the vLLM server may have restarted since
 * (its adapters are loaded at run time and gone with it). `hone-trainer sync` reports every 30 s.
 */
export const SERVING_FRESH_SECONDS = 180;

/** A vLLM server (custom provider of kind vllm) and what its sync last said. */
export type AdapterServer = {
  providerId: string;
  slug: string;
  baseModel: string;
  loaded: boolean;
  host: string | null;
  error: string | null;
  reportedAt: Date | null;
  fresh: boolean;
};

/**
 * The project's vLLM servers for a base model, each with whether its fresh report lists the adapter
 * `modelId` as loaded: the gateway sends `hone:<slug>` to one that does; the model page says which.
 */
export async function adapterServers(ctx: Ctx, modelId: string, baseModel: string): Promise<AdapterServer[]> {
  const now = ctx.deps.clock().getTime();
  const rows = await dbOf(ctx)
    .select({
      providerId: customProviders.id,
      slug: customProviders.slug,
      baseModel: customProviders.baseModel,
      // (The id as a text parameter built into an array: a JSON text cast to jsonb is encoded twice by postgres-js.)
      loaded: sql<boolean>`coalesce(${adapterServings.loaded} @> jsonb_build_array(${modelId}::text), false)`,
      host: adapterServings.host,
      error: adapterServings.error,
      reportedAt: adapterServings.reportedAt,
    })
    .from(customProviders)
    .leftJoin(adapterServings, eq(adapterServings.providerId, customProviders.id))
    .where(and(eq(customProviders.projectId, ctx.projectId), eq(customProviders.kind, "vllm"), eq(customProviders.baseModel, baseModel)))
    .orderBy(desc(adapterServings.reportedAt))
    .limit(100);
  return rows.map((r) => {
    const reportedAt = r.reportedAt ? new Date(r.reportedAt) : null;
    return {
      ...r,
      baseModel: r.baseModel ?? baseModel,
      reportedAt,
      fresh: reportedAt !== null && now - reportedAt.getTime() <= SERVING_FRESH_SECONDS * 1000,
    };
  });
}
