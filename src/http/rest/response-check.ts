import type { z } from "zod";
import { DomainError, type Issue } from "../../core/errors";
import { errorResponse } from "./errors";
import type { RestRoute } from "./route";

// Tests only (RestOptions.checkResponses): an answer that strays from its declared schema, a
// member missing, mistyped or undocumented, fails the request loudly instead of drifting from
// the OpenAPI document unnoticed.

export async function checkResponse(r: RestRoute, result: unknown): Promise<unknown> {
  if (!(result instanceof Response)) {
    // What Elysia will send: the value as JSON.
    const problems = mismatches(r.response.schema, JSON.parse(JSON.stringify(result ?? null)));
    return problems.length ? failure(r, problems) : result;
  }
  if (result.status < 200 || result.status >= 300 || !result.body) return result;
  const type = result.headers.get("content-type") ?? "";
  if (type.startsWith("application/json")) {
    const problems = mismatches(r.response.schema, JSON.parse(await result.clone().text()));
    return problems.length ? failure(r, problems) : result;
  }
  if (type.startsWith("application/x-ndjson")) {
    // Rows are checked as they stream by; a bad one breaks the stream, which the test reading it sees.
    return new Response(result.body.pipeThrough(rowChecker(r)), { status: result.status, headers: result.headers });
  }
  // Server-sent events carry chunks, not the declared completion; they are not checked here.
  return result;
}

function rowChecker(r: RestRoute): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  let line = 0;
  const check = (text: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    line++;
    const problems = mismatches(r.response.schema, JSON.parse(text));
    if (problems.length)
      controller.error(
        new Error(
          report(
            r,
            problems.map((p) => ({ ...p, message: `line ${line}: ${p.message}` })),
          ),
        ),
      );
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        check(pending.slice(0, nl), controller);
        pending = pending.slice(nl + 1);
      }
      controller.enqueue(chunk);
    },
    flush(controller) {
      if (pending.trim()) check(pending, controller);
    },
  });
}

/** Schema violations, then members the schema does not declare (zod strips those silently). */
function mismatches(schema: z.ZodType, wire: unknown): Issue[] {
  const parsed = schema.safeParse(wire);
  if (!parsed.success) return parsed.error.issues.map((i) => ({ message: i.message, path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)) }));
  const extra: Issue[] = [];
  undeclared(wire, parsed.data, [], extra);
  return extra;
}

function undeclared(wire: unknown, kept: unknown, path: (string | number)[], out: Issue[]) {
  if (Array.isArray(wire) && Array.isArray(kept)) {
    for (const [i, w] of wire.entries()) undeclared(w, kept[i], [...path, i], out);
  } else if (wire !== null && typeof wire === "object" && kept !== null && typeof kept === "object") {
    for (const [k, v] of Object.entries(wire)) {
      if (!(k in kept)) out.push({ message: `undeclared member "${k}"`, path: [...path, k] });
      else undeclared(v, (kept as Record<string, unknown>)[k], [...path, k], out);
    }
  }
}

function report(r: RestRoute, problems: Issue[]): string {
  const list = problems.map((p) => `${(p.path ?? []).join(".") || "(root)"}: ${p.message}`).join("; ");
  return `response of ${r.method.toUpperCase()} ${r.path} does not match its declared schema: ${list}`;
}

function failure(r: RestRoute, problems: Issue[]): Response {
  const message = report(r, problems);
  console.error(message);
  return errorResponse(new DomainError("INTERNAL", message, { issues: problems }));
}
