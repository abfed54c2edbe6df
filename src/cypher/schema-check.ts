import { type CypherNode, childRule, findRules, isRule, symbolicName, variableName } from "./parse-tree.js";
import {
  type Binding,
  collectBindings,
  type ElementKind,
  kindOf,
  knownLabels,
  labelNames,
  ownLabels,
} from "./pattern-elements.js";
import { type GraphSchema, nodePropertyNames, relationshipPropertyNames } from "./schema.js";

/**
 * Labels, relationship types and properties the query uses that the schema does not have. The
 * Neo4j linter only warns about these (a database may gain them later); for generated queries
 * they are almost always hallucinations, so they are errors here.
 */
export function checkSchemaNames(tree: CypherNode, schema: GraphSchema): string[] {
  const errors = new Set<string>();
  const labels = new Set(schema.labels);
  const types = new Set(schema.relationshipTypes);
  for (const node of findRules(tree, "nodePattern")) {
    for (const label of ownLabels(node).names)
      if (!labels.has(label)) errors.add(unknownLabel(label, schema));
  }
  for (const rel of findRules(tree, "relationshipPattern")) {
    for (const type of ownLabels(rel).names) if (!types.has(type)) errors.add(unknownType(type, schema));
  }
  // `WHERE n:Label` may name a label or a relationship type.
  for (const comparison of findRules(tree, "comparisonExpression6")) {
    // labelExpression4 directly in the newer grammar, inside a labelExpression in 2.0.0-next.20's.
    const expression = childRule(comparison, "labelExpression4") ?? childRule(comparison, "labelExpression");
    for (const name of labelNames(expression).names) {
      if (!labels.has(name) && !types.has(name)) errors.add(unknownLabel(name, schema));
    }
  }
  const bindings = collectBindings(tree);
  for (const use of propertyUses(tree, bindings)) {
    const error = checkProperty(use, schema);
    if (error) errors.add(error);
  }
  return [...errors];
}

function unknownLabel(label: string, schema: GraphSchema): string {
  return `Unknown label :${label} (the schema has ${listOf(schema.labels)})`;
}

function unknownType(type: string, schema: GraphSchema): string {
  return `Unknown relationship type :${type} (the schema has ${listOf(schema.relationshipTypes)})`;
}

function listOf(names: string[]): string {
  if (names.length === 0) return "none";
  const shown = names.slice(0, 30).join(", ");
  return names.length > 30 ? `${shown}, ... ${names.length - 30} more` : shown;
}

interface PropertyUse {
  property: string;
  kind: ElementKind;
  /** Labels or types the owner is known to have; undefined when it could be any. */
  owners: string[] | undefined;
}

/** Property reads on graph elements: `{key: ...}` in patterns, `v.key` and `v {.key}`. */
function propertyUses(tree: CypherNode, bindings: Map<string, Binding>): PropertyUse[] {
  const uses: PropertyUse[] = [];
  for (const element of [...findRules(tree, "nodePattern"), ...findRules(tree, "relationshipPattern")]) {
    const kind = kindOf(element);
    const properties = childRule(element, "properties");
    const map = properties && childRule(properties, "map");
    if (!kind || !map) continue;
    const owners = knownLabels(element, bindings);
    for (const key of map.children.filter((child) => isRule(child, "propertyKeyName"))) {
      uses.push({ property: symbolicName(key), kind, owners });
    }
  }
  for (const expression of findRules(tree, "expression2")) {
    const variable = childRule(expression.children[0] ?? expression, "variable");
    const key = propertyKeyOf(expression.children[1]);
    if (variable && key) addVariableUse(uses, bindings, symbolicName(variable), key);
  }
  for (const projection of findRules(tree, "mapProjection")) {
    const name = variableName(projection);
    if (!name) continue;
    for (const element of projection.children.filter((child) => isRule(child, "mapProjectionElement"))) {
      const key = propertyKeyOf(element);
      if (key) addVariableUse(uses, bindings, name, key);
    }
  }
  return uses;
}

/** `.key` under a postFix or map projection element. */
function propertyKeyOf(node: CypherNode | undefined): string | undefined {
  const property = node ? childRule(node, "property") : undefined;
  const key = property ? childRule(property, "propertyKeyName") : undefined;
  return key ? symbolicName(key) : undefined;
}

function addVariableUse(uses: PropertyUse[], bindings: Map<string, Binding>, name: string, property: string) {
  const binding = bindings.get(name);
  // Only variables bound by a node or relationship pattern: maps, yields and UNWIND values are free-form.
  if (!binding || binding.kind === "conflict") return;
  const owners = binding.open || binding.names.size === 0 ? undefined : [...binding.names];
  uses.push({ property, kind: binding.kind, owners });
}

function checkProperty(use: PropertyUse, schema: GraphSchema): string | undefined {
  const known = new Set(use.kind === "node" ? schema.labels : schema.relationshipTypes);
  // Unknown owners are reported as unknown labels already; do not pile a property error on top.
  const owners = use.owners?.filter((owner) => known.has(owner));
  if (use.owners && owners?.length === 0) return undefined;
  const names =
    use.kind === "node"
      ? nodePropertyNames(schema, owners ?? [])
      : relationshipPropertyNames(schema, owners ?? []);
  if (names.has(use.property)) return undefined;
  const available = [...names].sort().join(", ") || "none";
  if (!owners) {
    const what = use.kind === "node" ? "node label" : "relationship type";
    return `Unknown property ${use.property}: no ${what} in the schema has it`;
  }
  const owner = use.kind === "node" ? `(:${owners.join("|")})` : `[:${owners.join("|")}]`;
  const elsewhere = ownersElsewhere(schema, use.property);
  const hint = elsewhere.length ? `; ${use.property} is a property of ${elsewhere.join(", ")}` : "";
  return `Unknown property ${owner}.${use.property} (its properties: ${available})${hint}`;
}

/**
 * The labels and types that do have the property: a model that reads `p.rating` off the reviewer
 * instead of the [:REVIEWED] relationship learns where it lives (Neo4j itself would return null).
 */
function ownersElsewhere(schema: GraphSchema, property: string): string[] {
  const having = (table: Record<string, Record<string, string>>) =>
    Object.keys(table).filter((owner) => Object.hasOwn(table[owner] ?? {}, property));
  return [
    ...having(schema.nodeProperties).map((label) => `(:${label})`),
    ...having(schema.relationshipProperties).map((type) => `[:${type}]`),
  ];
}
