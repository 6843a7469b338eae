import type { GraphQLResolveInfo, SelectionSetNode } from "graphql";

/**
 * Whether the query selects a field of this name anywhere under the field being resolved (through
 * fragments too): a resolver can then skip work nobody asked for.
 */
export function selects(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined): boolean => {
    for (const s of set?.selections ?? []) {
      if (s.kind === "Field" && (s.name.value === name || walk(s.selectionSet))) return true;
      if (s.kind === "InlineFragment" && walk(s.selectionSet)) return true;
      if (s.kind === "FragmentSpread" && !seen.has(s.name.value)) {
        seen.add(s.name.value);
        if (walk(info.fragments[s.name.value]?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((f) => walk(f.selectionSet));
}
