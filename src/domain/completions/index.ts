export { createChatCompletion } from "./create-chat-completion";
export * from "./schemas";
