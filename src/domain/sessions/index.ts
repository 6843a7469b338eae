export { endSession } from "./end-session";
export { resolveSession, SESSION_ENDED_MESSAGE } from "./resolve-session";
export * from "./schemas";
export { startSession } from "./start-session";
export { switchSessionProject } from "./switch-session-project";
