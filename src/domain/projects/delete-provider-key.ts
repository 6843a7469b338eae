import { and, eq } from "drizzle-orm";
import { requireFullKey } from "./key-scopes";
import { dbOf, type Ctx } from "../context";
import { providerKeys } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { forgetCredentials } from "./get-upstream-credentials";
import { DEFAULT_KEY_NAME, ProviderKeyInput } from "./provider-settings";
import { type Deleted, deleted as deletedAs } from "../deleted";

/** Deletes one key of a provider (the `default` one unless named). */
export async function deleteProviderKey(ctx: Ctx, raw: { provider: string; name?: string | null }): Promise<Deleted> {
  requireFullKey(ctx.actor, "delete provider keys");
  const input = parseInput(ProviderKeyInput, raw);
  const deleted = await dbOf(ctx)
    .delete(providerKeys)
    .where(and(eq(providerKeys.projectId, ctx.projectId), eq(providerKeys.provider, input.provider), eq(providerKeys.name, input.name)))
    .returning({ provider: providerKeys.provider });
  if (!deleted[0]) {
    const which = input.name === DEFAULT_KEY_NAME ? `No ${input.provider} key` : `No ${input.provider} key named ${input.name}`;
    throw new DomainError("NOT_FOUND", `${which} is stored for this project`);
  }
  forgetCredentials(ctx.deps, ctx.projectId);
  return deletedAs(input.provider);
}
