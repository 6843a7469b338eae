export { ALIGNMENT_MAX_BYTES, alignmentStats, importAlignmentSet, labelAlignmentRow, listAlignmentRows, listAlignmentRuns, runAlignment } from "./alignment";
export { createCriterion } from "./create-criterion";
export { createCriterionVersion } from "./create-criterion-version";
export { deleteCriterion, getCriterion, listCriteria } from "./get-criteria";
export { resolveCriterion } from "./internal";
export { judgeChoices, resolveCriteriaRefs, type CriterionResult } from "./judge-choices";
export { judgeCriterion } from "./judge-criterion";
export { judgeOutput } from "./judge-output";
export * from "./schemas";
