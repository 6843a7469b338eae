export * from "./accounts";
export * from "./invitations";
export * from "./member-keys";
export * from "./organization";
export * from "./schemas";
export * from "./single-sign-on";
