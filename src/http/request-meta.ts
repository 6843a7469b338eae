// Per-request facts the transports share (request id, timing, the authenticated project), keyed
// by the Request object so they need no framework-specific context.
type RequestMeta = {
  requestId: string;
  startedAt: number;
  projectId?: string;
  /** The TCP peer's address as the server saw it; absent for in-process requests (tests). */
  peer?: string;
  /**
   * Lifts the server's idle timeout for this request's connection: a call that waits for a
   * provider may send nothing for longer than it (its own deadline, HONE_UPSTREAM_TIMEOUT_MS,
   * governs instead). Absent for in-process requests.
   */
  holdOpen?: () => void;
  /** The client's address, once worked out (see client-address.ts). */
  clientAddress?: string;
};

const metas = new WeakMap<Request, RequestMeta>();

export function setRequestMeta(request: Request, meta: RequestMeta): void {
  metas.set(request, meta);
}

export function requestMeta(request: Request): RequestMeta {
  let meta = metas.get(request);
  if (!meta) {
    meta = { requestId: newRequestId(), startedAt: performance.now() };
    metas.set(request, meta);
  }
  return meta;
}

export function newRequestId(): string {
  return `req_${Bun.randomUUIDv7().replaceAll("-", "")}`;
}

/** A caller's own x-request-id is kept for tracing when it is short and plain. */
export function incomingRequestId(request: Request): string | undefined {
  const v = request.headers.get("x-request-id");
  return v && /^[A-Za-z0-9._:-]{1,128}$/.test(v) ? v : undefined;
}
