export * from "./accounts";
export * from "./organization";
export * from "./schemas";
export * from "./single-sign-on";
