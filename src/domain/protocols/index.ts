export { anthropicModel, countMessageTokens, CountTokensRequest, createMessage, type MessageResult, MessagesRequest } from "./create-message";
export { createResponse, type ResponseResult } from "./create-response";
export { ResponsesRequest } from "./responses-format";
export { deleteExpiredResponses, deleteStoredResponse, getStoredResponse, listInputItems, settleResponseSaves } from "./stored-responses";
export { insertStoredResponses } from "./stored-responses";
export { maskStoredResponses } from "./mask-stored-responses";
