export { endSession } from "./end-session";
export { resolveSession, SESSION_ENDED_MESSAGE } from "./resolve-session";
export * from "./schemas";
export { checkCredential, isApiKeyShaped, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS } from "./sign-in-throttle";
export { startSession } from "./start-session";
export { switchSessionOrganization, switchSessionProject } from "./switch-session-project";
export { type PersonSignIn, startPersonSession } from "./start-person-session";
export { effectiveRole } from "./internal";
