// Bounds on what one GraphQL operation may ask for, checked after parsing and validation and before
// any resolver runs: a query that would fan out into millions of rows is refused in microseconds
// instead of freezing the process.
//
// Why our own walk and not a library: the graphql-armor plugins depend on graphql ^16 (a second copy
// beside our graphql 17, whose errors and types fail `instanceof` checks across copies), and their
// cost limit has no notion of `first`. Pothos' complexity plugin supports graphql 17 and multipliers,
// but it skips introspection fields entirely, so `__type { fields { type { fields ... } } }` would be
// unbounded. The walk below is one recursive pass over the validated document.
import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  parse,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Config } from "../../core/config";
import type { BaseCtx, Ctx } from "../../domain/context";
import { tooDeepError, valueTooDeep } from "../../core/json-depth";

type GraphqlLimits = {
  maxDepth: number;
  /** HONE_MAX_JSON_DEPTH: nesting of the variables' values (JSON inputs). */
  maxJsonDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxCost: number;
  maxPageSize: number;
};

export const limitsOf = (config: Config): GraphqlLimits => ({
  maxDepth: config.graphqlMaxDepth,
  maxJsonDepth: config.maxJsonDepth,
  maxAliases: config.graphqlMaxAliases,
  maxTokens: config.graphqlMaxTokens,
  maxCost: config.graphqlMaxCost,
  maxPageSize: config.maxPageSize,
});

/** What a connection without `first` returns (the domain's default page). */
const DEFAULT_PAGE_COST = 50;
/** Assumed length of a list field that takes no page argument (a project's datasets, criteria, ...). */
const LIST_COST_MULTIPLIER = 10;

type OperationMeasure = {
  depth: number;
  aliases: number;
  cost: number;
  /** `first`/`last` arguments outside 0..maxPageSize, as messages with the field path. */
  pageIssues: { message: string; path: string[] }[];
};

type Walk = { depth: number; aliases: number; cost: number };

/**
 * A limit error: the client's mistake, code VALIDATION, with the HTTP status yoga gives its own
 * validation errors (GraphQL over HTTP: 400 for `application/graphql-response+json`, 200 for
 * `application/json`, whose clients read `errors`).
 */
function limitError(message: string, issues?: { message: string; path?: string[] }[]): GraphQLError {
  return new GraphQLError(message, { extensions: { code: "VALIDATION", http: { spec: true, status: 400 }, ...(issues ? { issues } : {}) } });
}

function fieldDefOf(parent: GraphQLNamedType, name: string, schema: GraphQLSchema): GraphQLField<unknown, unknown> | undefined {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name];
  return undefined;
}

/** An Int argument's value as the request gives it (literal or variable); undefined when absent or not an int. */
function intArgument(value: ValueNode | undefined, op: OperationDefinitionNode, variables: Record<string, unknown>): number | null | undefined {
  if (!value) return undefined;
  if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
  if (value.kind === Kind.NULL) return null;
  if (value.kind === Kind.VARIABLE) {
    const name = value.name.value;
    if (name in variables) {
      const v = variables[name];
      return typeof v === "number" && Number.isInteger(v) ? v : v === null ? null : undefined;
    }
    const def = op.variableDefinitions?.find((d) => d.variable.name.value === name)?.defaultValue;
    return def ? intArgument(def, op, variables) : undefined;
  }
  return undefined;
}

/** Depth, aliases, cost and page arguments of one operation (fragments expanded). */
function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  op: OperationDefinitionNode,
  variables: Record<string, unknown>,
  maxPageSize: number,
): OperationMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const pageIssues: OperationMeasure["pageIssues"] = [];
  const active = new Set<string>();
  const memo = new Map<string, Walk>();

  const walkSet = (set: SelectionSetNode, parent: GraphQLNamedType, path: string[]): Walk => {
    const out: Walk = { depth: 0, aliases: 0, cost: 0 };
    const add = (w: Walk) => {
      out.depth = Math.max(out.depth, w.depth);
      out.aliases += w.aliases;
      out.cost += w.cost;
    };
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) add(walkField(sel, parent, path));
      else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const type = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        if (type) add(walkSet(sel.selectionSet, type, path));
      } else {
        const frag = fragments.get(sel.name.value);
        // Validation has refused unknown and cyclic fragments already; the guard keeps this total anyway.
        if (!frag || active.has(frag.name.value)) continue;
        const type = schema.getType(frag.typeCondition.name.value);
        if (!type) continue;
        // A fragment measures the same wherever it is spread (its multipliers come from the fields
        // above the spread, applied by the caller): measured once, so a document whose fragments
        // spread each other twice over costs a walk linear in its size, not exponential.
        const key = `${frag.name.value}\u0000${type.name}`;
        let measured = memo.get(key);
        if (!measured) {
          active.add(frag.name.value);
          measured = walkSet(frag.selectionSet, type, path);
          active.delete(frag.name.value);
          memo.set(key, measured);
        }
        add(measured);
      }
    }
    return out;
  };

  const walkField = (node: FieldNode, parent: GraphQLNamedType, parentPath: string[]): Walk => {
    const path = [...parentPath, node.alias?.value ?? node.name.value];
    const def = fieldDefOf(parent, node.name.value, schema);
    const aliases = node.alias ? 1 : 0;
    if (!def) return { depth: 1, aliases, cost: 0 };
    let multiplier = 1;
    const pageArgs = def.args.filter((a) => a.name === "first" || a.name === "last");
    if (pageArgs.length) {
      let size: number | undefined;
      for (const arg of pageArgs) {
        const v = intArgument(node.arguments?.find((a) => a.name.value === arg.name)?.value, op, variables);
        if (v == null) continue;
        if (v < 0) pageIssues.push({ message: `${arg.name} must not be negative (got ${v})`, path: [...path, arg.name] });
        else if (v > maxPageSize) {
          pageIssues.push({ message: `${arg.name}: ${v} exceeds the page size limit of ${maxPageSize} (HONE_MAX_PAGE_SIZE)`, path: [...path, arg.name] });
        }
        size = Math.max(size ?? 0, v);
      }
      // Absent, a connection gives its default page; a paged list (datasets, models, ...) its largest.
      const connection = getNamedType(def.type).name.endsWith("Connection");
      multiplier = Math.max(0, size ?? (connection ? DEFAULT_PAGE_COST : maxPageSize));
    } else if (isListType(getNullableType(def.type))) {
      // A connection's edges are already counted by the connection's own `first`.
      const pagedByParent = parent.name.endsWith("Connection") && (node.name.value === "edges" || node.name.value === "nodes");
      multiplier = pagedByParent ? 1 : LIST_COST_MULTIPLIER;
    }
    // `ofType` is a chain, not a fan-out: introspection nests it ~9 times to unwrap [T!]! types, and
    // counting it would refuse GraphiQL's own schema query.
    const ownDepth = node.name.value === "ofType" ? 0 : 1;
    // Cost counts the objects (rows) an operation may produce: a leaf is read from its row, already loaded.
    if (!node.selectionSet) return { depth: ownDepth, aliases, cost: 0 };
    const sub = walkSet(node.selectionSet, getNamedType(def.type), path);
    return { depth: ownDepth + sub.depth, aliases: aliases + sub.aliases, cost: 1 + multiplier * sub.cost };
  };

  const root = schema.getRootType(op.operation);
  if (!root) return { depth: 0, aliases: 0, cost: 0, pageIssues };
  return { ...walkSet(op.selectionSet, root, []), pageIssues };
}

/** The limit errors of a validated document for this request (empty when within every limit). */
function checkLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  params: { variables?: Record<string, unknown> | null; operationName?: string | null },
  limits: GraphqlLimits,
): { errors: GraphQLError[]; cost: number } {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const chosen = params.operationName ? ops.filter((o) => o.name?.value === params.operationName) : ops;
  const errors: GraphQLError[] = [];
  let cost = 0;
  for (const op of chosen) {
    const m = measureOperation(schema, document, op, params.variables ?? {}, limits.maxPageSize);
    cost += m.cost;
    for (const issue of m.pageIssues) errors.push(limitError(issue.message, [issue]));
    if (m.depth > limits.maxDepth) errors.push(limitError(`Query depth ${m.depth} exceeds the limit of ${limits.maxDepth} (HONE_GRAPHQL_MAX_DEPTH)`));
    if (m.aliases > limits.maxAliases) {
      errors.push(limitError(`Query uses ${m.aliases} aliases, more than the limit of ${limits.maxAliases} (HONE_GRAPHQL_MAX_ALIASES)`));
    }
    if (m.cost > limits.maxCost) {
      errors.push(
        limitError(
          `Query cost ${Math.round(m.cost)} exceeds the limit of ${limits.maxCost} (HONE_GRAPHQL_MAX_COST): ` +
            `each field counts once per row it may return, so ask nested lists for smaller pages (first)`,
        ),
      );
    }
  }
  return { errors, cost };
}

const TOKEN_ERROR = /Document contains more than \d+ tokens/;

/**
 * The yoga plugin: a token cap while parsing (the lexer stops at the limit instead of building a
 * huge AST), then depth, alias, page-size and cost checks once the standard validation has passed
 * and before any resolver runs.
 */
export function useOperationLimits(limits: GraphqlLimits): Plugin {
  return {
    // Variables are JSON the client sends (a dataset entry, an alignment set): no deeper than any other JSON input.
    onParams({ params, setResult }) {
      if (valueTooDeep(params.variables, limits.maxJsonDepth) || valueTooDeep(params.extensions, limits.maxJsonDepth)) {
        const err = tooDeepError(limits.maxJsonDepth, "The variables");
        setResult({ errors: [limitError(err.message)] });
      }
    },
    onParse({ setParseFn, parseFn }) {
      setParseFn((source, options) => {
        try {
          return (parseFn ?? parse)(source, { ...options, maxTokens: limits.maxTokens });
        } catch (err) {
          if (err instanceof GraphQLError && TOKEN_ERROR.test(err.message)) {
            throw limitError(`Query has more than ${limits.maxTokens} tokens, the limit (HONE_GRAPHQL_MAX_TOKENS)`);
          }
          throw err;
        }
      });
    },
    // On execute, not on validate: yoga caches validation results per document, and these depend
    // on the request's variables (`first: $n`). Execution has not started when this hook runs.
    onExecute({ args, setResultAndStopExecution }) {
      const { errors, cost } = checkLimits(args.schema, args.document, { variables: args.variableValues, operationName: args.operationName }, limits);
      if (errors.length) {
        setResultAndStopExecution({ errors });
        return;
      }
      // A project's operations spend its cost budget (HONE_PROJECT_COST_PER_SECOND): past it, 429
      // and when to come back, so one project's heavy reads cannot take the serving thread from the others.
      const principal = (args.contextValue as { principal?: { kind: string; ctx?: Ctx } }).principal;
      if (principal?.kind === "project" && principal.ctx) {
        const waitMs = principal.ctx.deps.fairShare.spendCost(principal.ctx.projectId, cost);
        if (waitMs > 0) {
          const seconds = Math.max(1, Math.ceil(waitMs / 1000));
          setResultAndStopExecution({
            errors: [
              new GraphQLError(
                `This project spent its GraphQL cost budget (HONE_PROJECT_COST_PER_SECOND, HONE_PROJECT_COST_BURST): this operation costs ${Math.round(cost)}; retry in ${seconds} s, or ask for smaller pages`,
                { extensions: { code: "RATE_LIMITED", http: { status: 429, headers: { "retry-after": String(seconds) } } } },
              ),
            ],
          });
          return;
        }
      }
      // An answer that would pass HONE_MAX_RESPONSE_BYTES is refused whole: the resolvers that
      // charged past it stopped loading, and none of the partial data is sent.
      const answer = (args.contextValue as { principal?: { ctx?: BaseCtx } }).principal?.ctx?.answer;
      if (!answer) return;
      return {
        onExecuteDone({ setResult }) {
          if (answer.refused !== null) setResult({ errors: [limitError(answer.refused)] });
        },
      };
    },
  };
}
