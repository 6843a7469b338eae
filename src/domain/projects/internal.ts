import { randomBase62 } from "../../ids";

export const API_KEY_PREFIX = "hone_sk_";

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(40);
}

export function hashApiKey(key: string): string {
  return Bun.SHA256.hash(key, "hex");
}
