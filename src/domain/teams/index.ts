export * from "./accounts";
export * from "./invitations";
export * from "./member-keys";
export * from "./organization";
export { listMembers, memberOf } from "./members";
export * from "./schemas";
export * from "./single-sign-on";
