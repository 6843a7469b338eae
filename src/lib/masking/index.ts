// The masking engine (pure functions: no database, no configuration): recognizers of sensitive
// values, and the masker that replaces them with placeholders and puts them back.
export { createMasker, createStreamRestorer, findSpans, type Masker, type MaskedCounts, PLACEHOLDER, recognizersFor } from "./masker";
export { BUILT_IN_KINDS, builtInRecognizers, entropy, patternRecognizer, luhn, type PhoneRegion, type Recognizer, type Span, validIban } from "./recognizers";
export { type Analysis, type Analyzer, type AnalyzerOptions, createAnalyzer, kindOf, stringsOf } from "./analyzer";
