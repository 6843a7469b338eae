// A change made through tRPC, and what follows it: a notification, the caller's next step, and the
// queries read again. The sections' query modules describe their mutations with it.
import { notifications } from "@mantine/notifications";
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import type { DecorateMutationProcedure, ResolverDef } from "@trpc/tanstack-react-query";
import { useTRPC } from "./trpc";

export type Trpc = ReturnType<typeof useTRPC>;

export type After<T> = {
  /** Said once it is done. */
  message?: (data: T) => string;
  color?: string;
  /** The caller's step (close the dialog, open the result). */
  onDone?: (data: T) => void;
  /** What to read again, from the API's keys (and what the change answered). */
  refresh?: (t: Trpc, data: T) => QueryKey[];
  /** Reads again before the caller's step (which then finds the lists up to date), not after. */
  refreshFirst?: boolean;
};

/** The mutation of `select(trpc)`, followed by `after`. */
export function useChange<TDef extends ResolverDef>(select: (t: Trpc) => DecorateMutationProcedure<TDef>, after: After<TDef["output"]> = {}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = async (data: TDef["output"]) => {
    await Promise.all((after.refresh?.(trpc, data) ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };
  return useMutation(
    select(trpc).mutationOptions({
      onSuccess: async (data) => {
        if (after.message) notifications.show({ message: after.message(data), ...(after.color ? { color: after.color } : {}) });
        if (after.refreshFirst) await refresh(data);
        after.onDone?.(data);
        if (!after.refreshFirst) await refresh(data);
      },
    }),
  );
}
