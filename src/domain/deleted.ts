/**
 * What every delete verb answers: the id of what is gone (a model's slug, a provider key's
 * provider). Transports shape it for their wire; tRPC passes it through as it is.
 */
export type Deleted = { id: string; deleted: true };

export const deleted = (id: string): Deleted => ({ id, deleted: true });
