import { builder } from "./builder";
import "./types/criteria";
import "./types/datasets";
import "./types/evaluations";
import "./types/graph";
import "./types/logs";
import "./types/monitors";
import "./types/relabel-runs";
import "./types/pruning-rules";
import "./types/models";
import "./types/projects";
import "./types/provider-settings";
import "./types/routes";
import "./types/pricing";
import "./types/limits";
import "./types/teams";
import "./types/usage";

export const schema = builder.toSchema({ sortSchema: true });
