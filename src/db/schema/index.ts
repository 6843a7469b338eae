export * from "./projects";
export * from "./datasets";
