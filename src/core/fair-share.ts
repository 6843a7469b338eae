import { DomainError } from "./errors";

// Fair share of the expensive work one project asks for: at most `active` requests of a lane
// (GraphQL, tRPC, exports, imports) run at once per project, up to `queued` more wait their turn
// (each at most `waitMs`), and past that a request is refused with 429 and Retry-After. Other
// projects (and the gateway, which is not a lane) never wait behind one project's burst.

export type Lane = "graphql" | "trpc" | "export" | "import";
export type FairShareLimits = {
  active: number;
  queued: number;
  waitMs: number;
  /** GraphQL cost a project may spend per second on average, and at most at once (a token bucket). */
  costPerSecond: number;
  costBurst: number;
};

type Slot = { active: number; waiting: { grant: () => void; timer: ReturnType<typeof setTimeout> }[] };

export type FairShare = {
  /** Waits for a slot of the project's lane; the returned release must be called once when the work ends. */
  acquire(projectId: string, lane: Lane): Promise<() => void>;
  /** Runs `work` in a slot. */
  run<T>(projectId: string, lane: Lane, work: () => Promise<T>): Promise<T>;
  /**
   * Spends `cost` of the project's GraphQL cost budget: 0 when it had enough, else the milliseconds
   * until it will (nothing spent). One CPU-heavy operation at a time still takes the serving thread
   * for its length: the budget bounds how much of each second one project's operations can take.
   */
  spendCost(projectId: string, cost: number): number;
  /** Requests running and waiting, per project and lane (for tests and metrics). */
  stats(projectId: string, lane: Lane): { active: number; waiting: number };
};

const busy = (lane: Lane, limits: FairShareLimits, why: string) =>
  new DomainError(
    "RATE_LIMITED",
    `This project has ${limits.active} ${lane} requests running and ${limits.queued} waiting (HONE_PROJECT_CONCURRENCY, HONE_PROJECT_QUEUE): ${why}; retry in a second`,
    { retryAfterSeconds: 1 },
  );

export function createFairShare(limits: FairShareLimits): FairShare {
  const slots = new Map<string, Slot>();
  const slotOf = (key: string) => {
    let s = slots.get(key);
    if (!s) slots.set(key, (s = { active: 0, waiting: [] }));
    return s;
  };
  const releaser = (key: string, s: Slot) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = s.waiting.shift();
      if (next) {
        // The slot passes straight to the next in line.
        clearTimeout(next.timer);
        next.grant();
        return;
      }
      s.active--;
      if (s.active === 0 && !s.waiting.length) slots.delete(key);
    };
  };
  const acquire = (projectId: string, lane: Lane): Promise<() => void> => {
    const key = `${lane}\u0000${projectId}`;
    const s = slotOf(key);
    if (s.active < limits.active) {
      s.active++;
      return Promise.resolve(releaser(key, s));
    }
    if (s.waiting.length >= limits.queued) return Promise.reject(busy(lane, limits, "the queue is full"));
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => resolve(releaser(key, s)),
        timer: setTimeout(() => {
          const i = s.waiting.indexOf(entry);
          if (i >= 0) s.waiting.splice(i, 1);
          reject(busy(lane, limits, `none was free within ${limits.waitMs} ms`));
        }, limits.waitMs),
      };
      s.waiting.push(entry);
    });
  };
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    spendCost(projectId, cost) {
      const now = performance.now();
      let b = buckets.get(projectId);
      if (b) buckets.delete(projectId);
      else b = { tokens: limits.costBurst, at: now };
      b.tokens = Math.min(limits.costBurst, b.tokens + ((now - b.at) / 1000) * limits.costPerSecond);
      b.at = now;
      // Most recently used last: the least recently used bucket goes first past 10,000 projects.
      buckets.set(projectId, b);
      if (buckets.size > 10_000) buckets.delete(buckets.keys().next().value!);
      const need = Math.min(cost, limits.costBurst);
      if (b.tokens >= need) {
        b.tokens -= need;
        return 0;
      }
      return Math.ceil(((need - b.tokens) / limits.costPerSecond) * 1000);
    },
    acquire,
    async run(projectId, lane, work) {
      const release = await acquire(projectId, lane);
      try {
        return await work();
      } finally {
        release();
      }
    },
    stats(projectId, lane) {
      const s = slots.get(`${lane}\u0000${projectId}`);
      return { active: s?.active ?? 0, waiting: s?.waiting.length ?? 0 };
    },
  };
}
