export { BUILT_IN_KINDS, createMasker, createStreamRestorer, type Masker, type MaskedCounts } from "../../lib/masking";
export { deleteMaskingRule, listMaskingKinds, listMaskingRules, type MaskingKind, setMaskingRule, testMasking } from "./rules";
export { maskingFor, maskingOfCall, projectMasking, type ProjectMasking } from "./effective";
export * from "./schemas";
export { storageMasking } from "./storage";
export { deleteMaskingRecognizer, listMaskingRecognizers, type OwnRecognizer, setMaskingRecognizer } from "./own-recognizers";
export { ANALYZER_WARNING, analyze, analyzeLog, analyzerKinds, hasAnalyzer, sensitiveIn } from "./analyzer";
