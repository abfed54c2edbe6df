import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seededRandom } from "../../src/community/seeded-random.js";
import {
  type ChatCall,
  type ChatHandler,
  type ScriptedReply,
  type ScriptedServer,
  type ScriptedServerOptions,
  scriptByStage,
  startScriptedOpenAI,
} from "./scripted-openai-server.js";

/**
 * Small generated corpora for the lifecycle tests, and a scripted "model" that extracts from them
 * deterministically, so an LLM-path run can be compared with a clean one.
 */

/** Three groups of entities that never meet, so the graph has separate communities. */
const GROUPS = [
  {
    people: ["Mara Okafor", "Tomas Weber", "Ines Duarte"],
    orgs: ["Lumen Robotics"],
    places: ["Lisbon", "Porto"],
  },
  {
    people: ["Kenji Watanabe", "Leila Haddad", "Pavel Novak"],
    orgs: ["Harbor Analytics", "Northwind Labs"],
    places: ["Osaka", "Tunis"],
  },
  { people: ["Amara Nwosu", "Sofia Lindqvist"], orgs: ["Cobalt Foundry"], places: ["Prague", "Berlin"] },
];
export const GROUP_COUNT = GROUPS.length;
const PEOPLE = GROUPS.flatMap((g) => g.people);
const ORGANISATIONS = GROUPS.flatMap((g) => g.orgs);
const PLACES = GROUPS.flatMap((g) => g.places);
const VERBS = ["founded", "joined", "advised", "visited", "funded", "audited"];

/** The engine's own seeded PRNG (mulberry32), so every "random" corpus is reproducible. */
export { seededRandom } from "../../src/community/seeded-random.js";

function pick<T>(items: T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** One short passage about a person, an organisation and a place of group `n % 3`. */
export function passage(n: number, random: () => number): string {
  const group = GROUPS[n % GROUPS.length] as (typeof GROUPS)[number];
  const [person, org, place] = [
    pick(group.people, random),
    pick(group.orgs, random),
    pick(group.places, random),
  ];
  return `${person} ${pick(VERBS, random)} ${org} in ${place}, says record ${n}.`;
}

/** Writes `count` one-passage .txt files into `folder` and returns their paths. */
export function writeCorpus(folder: string, count: number, seed = 7): string[] {
  mkdirSync(folder, { recursive: true });
  const random = seededRandom(seed);
  const paths: string[] = [];
  for (let n = 0; n < count; n++) {
    const path = join(folder, `doc-${String(n).padStart(4, "0")}.txt`);
    writeFileSync(path, `${passage(n, random)}\n`);
    paths.push(path);
  }
  return paths;
}

const KNOWN = [...PEOPLE, ...ORGANISATIONS, ...PLACES];
const typeOf = (name: string) =>
  PEOPLE.includes(name) ? "person" : ORGANISATIONS.includes(name) ? "organization" : "location";

/** The passage inside an extraction prompt (the text between the triple quotes). */
export function promptPassage(call: ChatCall): string {
  const text = (call.body.messages ?? [])[0]?.content ?? "";
  return /Passage:\n"""\n([\s\S]*?)\n"""/.exec(text)?.[1] ?? "";
}

/** Which passage ("... says record 4.") a call is about. */
export const recordOf = (call: ChatCall) => Number(/record (\d+)\./.exec(promptPassage(call))?.[1] ?? -1);

/** What the scripted model "finds" in a passage: the known names, and a relationship per pair. */
export function scriptedExtraction(passageText: string): object {
  const found = KNOWN.filter((name) => passageText.includes(name));
  const sentence = passageText.trim().replace(/\.$/, "");
  const entities = found.map((name) => ({
    name,
    type: typeOf(name),
    description: `${name}: ${sentence}.`,
  }));
  const relationships = found.flatMap((source, i) =>
    found.slice(i + 1).map((target) => ({
      source,
      target,
      description: `${source} and ${target}: ${sentence}.`,
      keywords: [typeOf(source) === "person" ? "people" : "organisations", "passage"],
      strength: 2 + (sentence.length % 7),
    })),
  );
  return { entities, relationships };
}

export const EMPTY_EXTRACTION = JSON.stringify({ entities: [], relationships: [] });

export function extractReply(call: ChatCall): ScriptedReply {
  return { content: JSON.stringify(scriptedExtraction(promptPassage(call))) };
}

export const REPORT_REPLY: ScriptedReply = {
  content: JSON.stringify({
    title: "Scripted community",
    summary: "People and organisations of the test corpus.",
    rating: 4,
    rating_explanation: "Test data.",
    findings: [{ summary: "Shared entities", explanation: "The passages share people and places." }],
  }),
};

/** Summaries that depend only on what is summarised, like a deterministic model. */
export function summarizeReply(call: ChatCall): ScriptedReply {
  const text = (call.body.messages ?? []).map((m) => m.content).join("\n");
  return { content: `Summary of ${text.length} characters of description.` };
}

/** Env for a CLI child or createKgrag that talks to the scripted server. */
export function llmEnv(baseURL: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    KGRAG_LLM_BASE_URL: baseURL,
    KGRAG_LLM_API_KEY: "test-key",
    KGRAG_LLM_MODEL: "scripted-chat",
    KGRAG_EMBEDDING_MODEL: "scripted-embed",
    KGRAG_EMBEDDING_DIM: "32",
    ...extra,
  };
}

/**
 * The scripted server every LLM-path lifecycle test talks to: extraction from the corpus, empty
 * gleaning, summaries and reports. `extract` replaces the extraction script (to gate or fail it).
 */
export function startLifecycleServer(
  options: Omit<ScriptedServerOptions, "chat"> & { extract?: ChatHandler } = {},
): Promise<ScriptedServer> {
  const { extract = extractReply, ...rest } = options;
  return startScriptedOpenAI({
    embeddingDimension: 32,
    ...rest,
    chat: scriptByStage({
      extract,
      glean: { content: EMPTY_EXTRACTION },
      summarize: summarizeReply,
      report: REPORT_REPLY,
    }),
  });
}
