export { anthropicModel, countMessageTokens, CountTokensRequest, createMessage, type MessageResult, MessagesRequest } from "./create-message";
