/**
 * Validator acceptance and catch rates on the Neo4j "movies" demo schema.
 *
 *   npx tsx bench/cypher-validator.ts [--show-misses]
 *
 * Acceptance: share of the hand-written valid read queries (bench/fixtures/movies-valid.jsonl) the
 * validator accepts. Catch rate: share of broken variants it rejects. Each variant applies one
 * mutation that breaks the query by construction (a misspelt keyword, a label/type/property the
 * schema lacks, a reversed Person->Movie relationship, a write clause); a query the mutation
 * cannot apply to yields no variant of that kind.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { loadSchema } from "../src/cypher/schema.js";
import { validateCypher } from "../src/cypher/validator.js";

interface Query {
  id: string;
  cypher: string;
}

type Mutation = (cypher: string, index: number) => string | undefined;

const LABEL_TYPOS: Record<string, string> = { Person: "Actor", Movie: "Film" };
const TYPE_TYPOS: Record<string, string> = {
  ACTED_IN: "STARRED_IN",
  DIRECTED: "DIRECTED_BY",
  PRODUCED: "PRODUCED_BY",
  WROTE: "WRITTEN_BY",
  REVIEWED: "RATED",
  FOLLOWS: "FRIENDS_WITH",
};
const PROPERTY_TYPOS: Record<string, string> = {
  name: "fullName",
  born: "birthYear",
  title: "movieTitle",
  released: "year",
  tagline: "slogan",
  roles: "role",
  rating: "score",
  summary: "text",
};

const replaceFirst = (text: string, pattern: RegExp, replace: (...groups: string[]) => string) => {
  const match = pattern.exec(text);
  if (!match) return undefined;
  return text.slice(0, match.index) + replace(...match) + text.slice(match.index + match[0].length);
};

const MUTATIONS: Record<string, Mutation> = {
  syntax: (q, i) =>
    [
      () => replaceFirst(q, /\bRETURN\b/, () => "RETRUN"),
      () => replaceFirst(q, /\)/, () => ""),
      () => replaceFirst(q, /->/, () => "=>") ?? replaceFirst(q, /\bRETURN\b/, () => "RETURN RETURN"),
    ][i % 3]?.(),
  "unknown label": (q) =>
    replaceFirst(q, /\((\w*):(Person|Movie)\b/, (_m, v = "", l = "") => `(${v}:${LABEL_TYPOS[l]}`),
  "unknown type": (q) =>
    replaceFirst(q, /\[(\w*):(ACTED_IN|DIRECTED|PRODUCED|WROTE|REVIEWED|FOLLOWS)\b/, (_m, v = "", t = "") => {
      return `[${v}:${TYPE_TYPOS[t]}`;
    }),
  "unknown property": (q) =>
    replaceFirst(q, /\.(name|born|title|released|tagline|roles|rating|summary)\b/, (_m, p = "") => {
      return `.${PROPERTY_TYPOS[p]}`;
    }),
  // Person->Movie types reversed; FOLLOWS joins Person to Person, so reversing it is still valid.
  "wrong direction": (q) =>
    replaceFirst(q, /-\[(\w*:(?:ACTED_IN|DIRECTED|PRODUCED|WROTE|REVIEWED)[^\]]*)\]->/, (_m, body = "") => {
      return `<-[${body}]-`;
    }) ??
    replaceFirst(
      q,
      /<-\[(\w*:(?:ACTED_IN|DIRECTED|PRODUCED|WROTE|REVIEWED)[^\]]*)\]-(?!>)/,
      (_m, body = "") => {
        return `-[${body}]->`;
      },
    ),
  write: (q, i) => {
    const variable = /\((\w+):/.exec(q)?.[1];
    const beforeReturn = (clause: string) => replaceFirst(q, /\bRETURN\b/, () => `${clause} RETURN`);
    const forms = [
      () => replaceFirst(q, /\bMATCH\b/, () => "MERGE"),
      () => variable && beforeReturn(`SET ${variable}.checked = true`),
      () => variable && beforeReturn(`WITH * DETACH DELETE ${variable}`),
      () => `CREATE (:Person {name: 'Intruder'}) WITH count(*) AS created ${q}`,
      () => variable && beforeReturn(`REMOVE ${variable}.name`),
      () => beforeReturn("FOREACH (x IN [1] | CREATE (:Movie {title: 'x'}))"),
      () => `LOAD CSV FROM 'https://example.com/movies.csv' AS row WITH count(row) AS rows ${q}`,
      () => `CALL apoc.load.json('https://example.com/x.json') YIELD value WITH count(value) AS n ${q}`,
    ];
    return forms[i % forms.length]?.() || undefined;
  },
};

async function main(): Promise<void> {
  const schema = await loadSchema("bench/fixtures/movies-schema.json");
  const queries: Query[] = readFileSync("bench/fixtures/movies-valid.jsonl", "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Query);
  const showMisses = process.argv.includes("--show-misses");
  validateCypher("MATCH (n) RETURN n", schema); // warm up the front end (first call loads it)
  const timings: number[] = [];
  const check = (cypher: string) => {
    const start = performance.now();
    const result = validateCypher(cypher, schema);
    timings.push(performance.now() - start);
    return result;
  };

  let accepted = 0;
  for (const query of queries) {
    const result = check(query.cypher);
    if (result.valid) accepted++;
    else if (showMisses) console.log(`rejected valid ${query.id}: ${result.errors.join("; ")}`);
  }
  console.log(
    `acceptance: ${accepted}/${queries.length} valid read queries accepted (${pct(accepted, queries.length)})`,
  );

  let caughtAll = 0;
  let totalAll = 0;
  for (const [kind, mutate] of Object.entries(MUTATIONS)) {
    let caught = 0;
    let total = 0;
    queries.forEach((query, i) => {
      const variant = mutate(query.cypher, i);
      if (!variant || variant === query.cypher) return;
      total++;
      if (!check(variant).valid) caught++;
      else if (showMisses) console.log(`missed ${kind} in ${query.id}: ${variant}`);
    });
    caughtAll += caught;
    totalAll += total;
    console.log(`catch ${kind.padEnd(17)} ${caught}/${total} (${pct(caught, total)})`);
  }
  console.log(`catch rate: ${caughtAll}/${totalAll} broken variants rejected (${pct(caughtAll, totalAll)})`);
  timings.sort((a, b) => a - b);
  const mean = timings.reduce((sum, t) => sum + t, 0) / timings.length;
  const p95 = timings[Math.floor(timings.length * 0.95)] ?? 0;
  console.log(
    `validation time per query: mean ${mean.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (${timings.length} queries)`,
  );
}

function pct(part: number, whole: number): string {
  return whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)}%`;
}

await main();
