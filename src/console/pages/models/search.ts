// The Models list's URL: `?new=1` opens the new fine-tune form, `datasetId` chooses its dataset
// (the dataset page's "Fine-tune" link).
export type ModelsSearch = { new?: 1; datasetId?: string };

export function parseModelsSearch(s: Record<string, unknown>): ModelsSearch {
  const open = s.new === 1 || s.new === "1" || s.new === true || s.new === "true";
  const datasetId = typeof s.datasetId === "string" && s.datasetId.trim() ? s.datasetId.slice(0, 100) : undefined;
  return { ...(open ? { new: 1 as const } : {}), ...(datasetId ? { datasetId } : {}) };
}
