import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { providerKeys } from "../../db/schema";
import { DomainError, parseInput } from "../../errors";
import { forgetCredentials } from "./get-upstream-credentials";
import { ProviderKeyInput } from "./provider-settings";
import { type Deleted, deleted as deletedAs } from "../deleted";

export async function deleteProviderKey(ctx: Ctx, raw: { provider: string }): Promise<Deleted> {
  const input = parseInput(ProviderKeyInput, raw);
  const deleted = await dbOf(ctx)
    .delete(providerKeys)
    .where(and(eq(providerKeys.projectId, ctx.projectId), eq(providerKeys.provider, input.provider)))
    .returning({ provider: providerKeys.provider });
  if (!deleted[0]) throw new DomainError("NOT_FOUND", `No ${input.provider} key is stored for this project`);
  forgetCredentials(ctx.deps, ctx.projectId);
  return deletedAs(input.provider);
}
