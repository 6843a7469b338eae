export * from "./audit";
