export { canonicalJson } from "../../canonical-json";
export { cacheKey, KEY_EXCLUDED_MEMBERS } from "./cache-key";
export { CACHE_TTL_MS, deleteExpiredCacheEntries, readCacheEntry, writeCacheEntry } from "./cache-store";
export { checkCache } from "./check-cache";
