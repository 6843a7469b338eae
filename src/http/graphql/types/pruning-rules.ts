import { CreatePruningRuleInput, createPruningRule, deletePruningRule, listPruningRules, type PruningRule } from "../../../domain/datasets";
import { asInputOf } from "../../../core/verb-input";
import { builder, projectCtx } from "../builder";
import { DatasetRef } from "./datasets";

const PruningRuleRef = builder.objectRef<PruningRule>("PruningRule").implement({
  description: "Text removed from a dataset's training prompts, and from the requests made to the fine-tunes trained with it",
  fields: (t) => ({
    id: t.exposeID("id"),
    datasetId: t.exposeID("datasetId"),
    text: t.exposeString("text"),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
  }),
});

builder.objectFields(DatasetRef, (t) => ({
  pruningRules: t.field({ type: [PruningRuleRef], resolve: (d, _, c) => listPruningRules(projectCtx(c), { datasetId: d.id }) }),
}));

const CreatePruningRuleInputRef = builder.inputType("CreatePruningRuleInput", {
  fields: (t) => ({ datasetId: t.id(), text: t.string({ description: "The text to remove, exactly as the prompts hold it" }) }),
});

builder.queryFields((t) => ({
  pruningRules: t.field({
    type: [PruningRuleRef],
    description:
      "A page of a dataset's pruning rules, in the order they apply: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (an id)",
    args: { datasetId: t.arg.id(), first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listPruningRules(projectCtx(c), { datasetId: String(a.datasetId), first: a.first, after: a.after }),
  }),
}));

builder.mutationFields((t) => ({
  createPruningRule: t.field({
    type: PruningRuleRef,
    description: "Adds a pruning rule to a dataset: fine-tunes created from then on train and serve without its text",
    args: { input: t.arg({ type: CreatePruningRuleInputRef }) },
    resolve: (_, { input }, c) => createPruningRule(projectCtx(c), asInputOf(CreatePruningRuleInput, { ...input, datasetId: String(input.datasetId) })),
  }),
  deletePruningRule: t.field({
    type: "String",
    description: "Deletes a pruning rule (fine-tunes trained with it keep it); returns its id",
    args: { id: t.arg.id() },
    resolve: async (_, a, c) => (await deletePruningRule(projectCtx(c), { id: String(a.id) })).id,
  }),
}));
