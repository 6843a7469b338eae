export * from "./projects";
export * from "./datasets";
export * from "./provider-settings";
export * from "./logs";
export * from "./cache";
export * from "./criteria";
export * from "./models";
export * from "./evaluations";
