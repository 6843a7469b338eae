import { and, desc, eq, sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { models, trainers } from "../../db/schema";
import { NoInput, verb } from "../verb";

export type TrainerInfo = {
  name: string;
  host: string;
  gpus: { name: string; memoryBytes: number | null }[];
  versions: Record<string, string>;
  lastSeenAt: Date;
  /** Heard from within two lease lengths. */
  online: boolean;
  /** The model it is training now, by slug. */
  training: string | null;
};

export const listTrainers = verb({
  name: "trainers",
  description: "The trainers (hone-trainer work) that have asked this project for work: host, GPUs, versions, when last heard from, what they train",
  kind: "query",
  role: "viewer",
  input: NoInput,
  run: async (ctx: Ctx): Promise<TrainerInfo[]> => {
    const rows = await dbOf(ctx)
      .select({
        name: trainers.name,
        host: trainers.host,
        gpus: trainers.gpus,
        versions: trainers.versions,
        lastSeenAt: trainers.lastSeenAt,
        training: sql<string | null>`(select ${models.slug} from ${models} where ${models.id} = ${trainers.currentModelId} and ${models.status} = 'TRAINING')`,
      })
      .from(trainers)
      .where(and(eq(trainers.projectId, ctx.projectId)))
      .orderBy(desc(trainers.lastSeenAt))
      .limit(200);
    const recent = ctx.deps.clock().getTime() - 2 * ctx.deps.config.trainers.leaseSeconds * 1000;
    return rows.map((r) => ({ ...r, online: r.lastSeenAt.getTime() >= recent }));
  },
});
