export * from "./accounts";
export * from "./organization";
export * from "./schemas";
