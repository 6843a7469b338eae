import type { Config } from "./config";
import type { Database } from "./db/client";
import { newId, type IdGenerator } from "./ids";
import type { Logger } from "./logger";

/** Everything a domain verb may reach outside itself. Tests build their own. */
export type Deps = {
  config: Config;
  database: Database;
  logger: Logger;
  /** Current time; injected so expiry and ordering can be tested. */
  clock: () => Date;
  ids: IdGenerator;
  /** Uniform [0, 1); injected so random splits can be tested. */
  random: () => number;
  /** 32-byte key for encrypting provider keys at rest. */
  secretKey: Uint8Array;
};

export function createDeps(parts: Pick<Deps, "config" | "database" | "logger" | "secretKey"> & Partial<Deps>): Deps {
  return { clock: () => new Date(), ids: newId, random: Math.random, ...parts };
}
