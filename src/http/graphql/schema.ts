import { builder } from "./builder";
import "./types/datasets";
import "./types/projects";

export const schema = builder.toSchema({ sortSchema: true });
