export { createChatCompletion } from "./create-chat-completion";
export * from "./schemas";
export { PLAYGROUND_TAG, type PlaygroundEvent, PlaygroundRunInput, runPlayground } from "./run-playground";
export { createEmbeddings } from "./create-embeddings";
