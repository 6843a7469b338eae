import { eq } from "drizzle-orm";
import { type BaseCtx, dbOf } from "../context";
import { projects } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../core/errors";

// Where an actor's organisation is, and where people reach this Hone: what every teams verb starts from.

/** Where people reach this Hone: HONE_PUBLIC_URL, or the address it listens on. */
export function publicUrlOf(deps: Deps): string {
  if (deps.config.publicUrl) return deps.config.publicUrl;
  const host = deps.config.host === "0.0.0.0" || deps.config.host === "::" ? "localhost" : deps.config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${deps.config.port}`;
}

/**
 * The organisation an actor acts in: a person's session's; for a key or the admin token, the
 * organisation of the project they act on. NOT_FOUND when there is none yet.
 */
export async function organizationOf(ctx: BaseCtx & { projectId?: string }): Promise<string> {
  if (ctx.actor.type === "user") return ctx.actor.organizationId;
  if (ctx.projectId) {
    const [row] = await dbOf(ctx).select({ org: projects.organizationId }).from(projects).where(eq(projects.id, ctx.projectId));
    if (row?.org) return row.org;
  }
  throw new DomainError("NOT_FOUND", "This project belongs to no organisation yet: create the first owner with the link Hone prints at start");
}
