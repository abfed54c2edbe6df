import { type CypherNode, childRule, findRules, isRule, symbolicName, variableName } from "./parse-tree.js";

/**
 * The names a label expression mentions. `open` is set when the expression cannot be read as "one of
 * these names" (negation, %, dynamic labels): such elements are not used to narrow schema checks.
 */
export interface LabelNames {
  names: string[];
  open: boolean;
}

export type ElementKind = "node" | "relationship";

/** What a variable is bound to across the query: its kind and every label/type it is given. */
export interface Binding {
  kind: ElementKind | "conflict";
  names: Set<string>;
  open: boolean;
}

/** Reads the label names of a label expression (labelExpression or labelExpression4 subtree). */
export function labelNames(expression: CypherNode | undefined): LabelNames {
  if (!expression) return { names: [], open: false };
  const names: string[] = [];
  let open = false;
  for (const leaf of findRules(expression, "labelExpression1")) {
    const name = childRule(leaf, "symbolicNameString");
    if (name) names.push(symbolicName(name));
    else if (!childRule(leaf, "labelExpression4")) open = true; // % or $(...)
  }
  if (findRules(expression, "labelExpression2").some((node) => node.children[0]?.name === "!")) open = true;
  return { names, open };
}

/** The label expression written directly on a node or relationship pattern. */
export function ownLabels(element: CypherNode): LabelNames {
  return labelNames(childRule(element, "labelExpression"));
}

export function kindOf(element: CypherNode): ElementKind | undefined {
  if (isRule(element, "nodePattern")) return "node";
  if (isRule(element, "relationshipPattern")) return "relationship";
  return undefined;
}

/**
 * Variables bound by node and relationship patterns, with the union of the labels they are given
 * anywhere in the query. Scopes are merged on purpose: the checks built on this must never reject a
 * valid query, and a union only makes them more permissive.
 */
export function collectBindings(tree: CypherNode): Map<string, Binding> {
  const bindings = new Map<string, Binding>();
  const elements = [...findRules(tree, "nodePattern"), ...findRules(tree, "relationshipPattern")];
  for (const element of elements) {
    const name = variableName(element);
    const kind = kindOf(element);
    if (!name || !kind) continue;
    const labels = ownLabels(element);
    const binding = bindings.get(name) ?? { kind, names: new Set<string>(), open: false };
    if (binding.kind !== kind) binding.kind = "conflict";
    for (const label of labels.names) binding.names.add(label);
    binding.open ||= labels.open;
    bindings.set(name, binding);
  }
  return bindings;
}

/**
 * The labels (or types) a pattern element is known to have: its own and those its variable is given
 * elsewhere. Undefined when nothing narrows it down.
 */
export function knownLabels(element: CypherNode, bindings: Map<string, Binding>): string[] | undefined {
  const own = ownLabels(element);
  if (own.open) return undefined;
  const names = new Set(own.names);
  const name = variableName(element);
  const binding = name ? bindings.get(name) : undefined;
  if (binding && binding.kind !== "conflict") {
    if (binding.open) return undefined;
    for (const label of binding.names) names.add(label);
  }
  return names.size ? [...names] : undefined;
}
