export * from "./schemas";
export { splitEntry } from "./split-entry";
export { ChatEntry, Split } from "./entry";
