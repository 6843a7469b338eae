export { canonicalJson } from "../../lib/canonical-json";
export { cacheKey, KEY_EXCLUDED_MEMBERS } from "./cache-key";
export { deleteExpiredCacheEntries } from "./cache-store";
export { checkCache } from "./check-cache";
export { readCacheEntry } from "./cache-store";
export { writeCacheEntry } from "./cache-store";
export { replayAsChunks } from "./replay";
