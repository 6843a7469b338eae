export { BUILT_IN_KINDS, createMasker, createStreamRestorer, type Masker, type MaskedCounts } from "../../lib/masking";
export { deleteMaskingRule, listMaskingRules, setMaskingRule, testMasking } from "./rules";
export { maskingFor, maskingOfCall, projectMasking, type ProjectMasking } from "./effective";
export * from "./schemas";
export { storageMasking } from "./storage";
export { deleteMaskingRecognizer, listMaskingRecognizers, type OwnRecognizer, setMaskingRecognizer } from "./own-recognizers";
