import { and, eq } from "drizzle-orm";
import { requireFullKey } from "./key-scopes";
import { dbOf, type Ctx } from "../context";
import { customProviders } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { type Deleted, deleted as deletedAs } from "../deleted";
import { forgetCredentials } from "./get-upstream-credentials";
import { CustomProviderIdInput } from "./provider-settings";

/** Removes a custom provider (its stored key with it); calls to `hone:<slug>/…` then answer 404. */
export async function deleteCustomProvider(ctx: Ctx, raw: { id: string }): Promise<Deleted> {
  requireFullKey(ctx.actor, "delete custom providers");
  const input = parseInput(CustomProviderIdInput, raw);
  const [row] = await dbOf(ctx)
    .delete(customProviders)
    .where(and(eq(customProviders.id, input.id), eq(customProviders.projectId, ctx.projectId)))
    .returning({ id: customProviders.id });
  if (!row) throw notFound("Custom provider", input.id);
  forgetCredentials(ctx.deps, ctx.projectId);
  return deletedAs(row.id);
}
