export { CLIENT_CLOSED_STATUS, createChatCompletion, type ChatCompletionResult } from "./create-chat-completion";
export { callModel, type CallModelInput } from "./call-model";
export { resolveModel, type ModelRoute } from "./resolve-model";
export * from "./schemas";
