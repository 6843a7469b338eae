export { BUILT_IN_KINDS, createMasker, createStreamRestorer, type Masker, type MaskedCounts } from "../../lib/masking";
export { deleteMaskingRule, listMaskingRules, maskingFor, maskingOfCall, setMaskingRule, testMasking } from "./rules";
export * from "./schemas";
export { storageMasking } from "./storage";
