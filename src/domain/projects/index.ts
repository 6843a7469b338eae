export { authenticateApiKey } from "./authenticate-api-key";
export { bootstrapProjects, DEFAULT_PROJECT_NAME } from "./bootstrap-projects";
export { createApiKey } from "./create-api-key";
export { createProject } from "./create-project";
export * from "./schemas";
