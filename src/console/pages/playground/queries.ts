// The playground's data: every query and mutation of the section, with their keys and what each
// refreshes. Components call these hooks; none of them talks to tRPC itself.
import { useModelList } from "../../lib/project-lists";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { errorMessageOf, type RouterInputs, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";

export type RunInput = RouterInputs["playground"]["run"];
export type Done = Extract<RouterOutputs["playground"]["run"] extends AsyncIterable<infer E> ? E : never, { type: "done" }>;
export type Column = { model: string; texts: string[]; done: Done | null; error: string | null; running: boolean };

/** The model strings to suggest: deployed fine-tunes, models seen in the logs, a few defaults. */
export function useModelSuggestions(): string[] {
  const trpc = useTRPC();
  const facets = useQuery(trpc.logs.facets.queryOptions());
  const models = useModelList();
  return [
    ...new Set([
      ...(models.data ?? []).filter((m) => m.status === "DEPLOYED").map((m) => `hone:${m.slug}`),
      // Models that answered in the recent logs: a string seen only in failed calls is a typo, not a choice.
      ...(facets.data?.models ?? []).filter((m) => m.answered > 0).map((m) => m.value),
      "openai:gpt-4o-mini",
      "openai:gpt-4o",
      "anthropic:claude-3-5-haiku-latest",
    ]),
  ];
}

export { useCriterionList as useCriteriaList, useDatasetList as useDatasetsList } from "../../lib/project-lists";

/** The log a `?fromLog=` link names, to fill the playground from (not asked for without one). */
export function useLogToPrefill(logId: string | undefined) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.logs.get.queryOptions({ id: logId ?? "" }), enabled: Boolean(logId), staleTime: Number.POSITIVE_INFINITY });
}

/** A finished run's log, polled for until it is written (within a moment), for its cost and link. */
export function useRunLog(completionId: string | null) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.logs.list.queryOptions({ filter: { completionId: completionId ?? "" }, first: 1 }),
    enabled: Boolean(completionId),
    refetchInterval: (q) => ((q.state.data?.logs.length ?? 0) > 0 || q.state.dataUpdateCount > 20 ? false : 500),
  });
}

export function useSaveEntry() {
  const trpc = useTRPC();
  return useMutation(
    trpc.playground.saveEntry.mutationOptions({
      onSuccess: () => notifications.show({ message: "Saved as a dataset entry" }),
      onError: (err) => notifications.show({ color: "red", title: "Not saved", message: errorMessageOf(err) }),
    }),
  );
}

/**
 * Runs one conversation on several models at once, each streamed into its own column; `stop`
 * aborts every call still running (the server aborts the upstream call too).
 */
export function usePlaygroundRuns() {
  const client = useTRPCClient();
  const [columns, setColumns] = useState<Column[]>([]);
  const aborts = useRef<AbortController[]>([]);
  const update = (i: number, f: (c: Column) => Column) => setColumns((cols) => cols.map((c, j) => (j === i ? f(c) : c)));
  const run = (models: string[], input: Omit<RunInput, "model">) => {
    for (const a of aborts.current) a.abort();
    setColumns(models.map((model) => ({ model, texts: [], done: null, error: null, running: true })));
    const controllers = models.map(() => new AbortController());
    aborts.current = controllers;
    models.forEach(async (model, i) => {
      const signal = controllers[i]!.signal;
      try {
        const events = await client.playground.run.mutate({ ...input, model }, { signal });
        for await (const e of events) {
          if (e.type === "delta")
            update(i, (c) => {
              const texts = [...c.texts];
              texts[e.index] = (texts[e.index] ?? "") + e.content;
              return { ...c, texts };
            });
          else if (e.type === "done") update(i, (c) => ({ ...c, done: e }));
          else update(i, (c) => ({ ...c, error: e.message }));
        }
      } catch (err) {
        if (aborts.current !== controllers) return; // a newer run replaced this one
        update(i, (c) => ({ ...c, error: signal.aborted ? "Stopped" : errorMessageOf(err) }));
      } finally {
        if (aborts.current === controllers) update(i, (c) => ({ ...c, running: false }));
      }
    });
  };
  const stop = () => {
    for (const a of aborts.current) a.abort();
  };
  return { columns, running: columns.some((c) => c.running), run, stop };
}
