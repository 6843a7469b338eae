// The classes providers bill tokens in, as constants every layer may read: the log store keeps a
// column per figure (db/schema/logs.ts) and pricing prices them (domain/pricing/token-classes.ts).

/** The token classes, in the order a bill lists them. */
export const TOKEN_CLASSES = ["input", "cache_read", "cache_write_5m", "cache_write_1h", "audio_input", "output", "reasoning", "audio_output"] as const;
export type TokenClass = (typeof TOKEN_CLASSES)[number];

/** Every figure a log's classes map may hold, in bill order: what the usage rollups sum, a column each (`class_<key>`). */
export const CLASS_SUM_KEYS = [...TOKEN_CLASSES.flatMap((c) => [`${c}_tokens`, `${c}_usd`]), "compute_seconds", "compute_usd"] as const;
