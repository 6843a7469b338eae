import { builder } from "./builder";
import { guardMutations } from "./mutation-guard";
import "./types/criteria";
import "./types/datasets";
import "./types/evaluations";
import "./types/graph";
import "./types/logs";
import "./types/monitors";
import "./types/online-evals";
import "./types/relabel-runs";
import "./types/pruning-rules";
import "./types/models";
import "./types/projects";
import "./types/provider-settings";
import "./types/routes";
import "./types/pricing";
import "./types/limits";
import "./types/masking";
import "./types/traces";
import "./types/teams";
import "./types/usage";
import { limitsFields } from "../verbs/limits";
import { webhooksFields } from "../verbs/webhooks";
import { trainersFields } from "../verbs/trainers";
import { fineTunesFields } from "../verbs/fine-tunes";
import { maskingFields } from "../verbs/masking";
import { tracesFields } from "../verbs/traces";

// Verbs declared once (src/domain/verb.ts), exposed by src/http/verbs/<area>.ts.
limitsFields();
webhooksFields();
trainersFields();
fineTunesFields();
maskingFields();
tracesFields();

// Every Mutation field checks its scope and is audited where it runs (see mutation-guard.ts).
export const schema = guardMutations(builder.toSchema({ sortSchema: true }));
