import { systemCtx } from "../domain/context";
import { secretsEqual } from "../lib/crypto";
import type { Deps } from "../domain/deps";
import { DomainError, toDomainError } from "../core/errors";
import { OPERATOR_COMMANDS, type OperatorCommand, runOperatorCommand, UsageError } from "../commands/operator-commands";
import { errorResponse } from "./rest/errors";

/**
 * POST /internal/control: the `hone` CLI's command, run by this server because it holds the
 * embedded database (see control-file.ts). Authorised by the token the server wrote into its data
 * directory; answered with the command's JSON, or the error envelope.
 */
export async function controlResponse(deps: Deps, request: Request, token: string): Promise<Response> {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!secretsEqual(given, token))
    return errorResponse(new DomainError("UNAUTHORIZED", "The control endpoint needs the token of this server's data directory"));
  try {
    const body = (await request.json()) as { command?: unknown; options?: unknown };
    const command = String(body.command) as OperatorCommand;
    if (!OPERATOR_COMMANDS.includes(command)) throw new UsageError(`unknown command: ${String(body.command)}`);
    const options = typeof body.options === "object" && body.options !== null ? (body.options as Record<string, unknown>) : {};
    const ctx = { ...systemCtx(deps, "cli"), actor: { type: "cli" as const } };
    return Response.json(await runOperatorCommand(ctx, command, options));
  } catch (err) {
    if (err instanceof UsageError || err instanceof SyntaxError) return errorResponse(new DomainError("VALIDATION", err.message));
    return errorResponse(toDomainError(err));
  }
}
