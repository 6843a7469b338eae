export { createChatCompletion } from "./create-chat-completion";
export { PLAYGROUND_TAG, type PlaygroundEvent, PlaygroundRunInput, runPlayground } from "./run-playground";
export { createEmbeddings } from "./create-embeddings";
export { namesFallbacks } from "./parse-controls";
export { parseControls } from "./parse-controls";
