export { canonicalJson } from "../../canonical-json";
export { cacheKey, KEY_EXCLUDED_MEMBERS } from "./cache-key";
export { deleteExpiredCacheEntries } from "./cache-store";
export { checkCache } from "./check-cache";
