import { isOrganizationWord, isPlaceWord, type Token } from "./english-tokens.js";
import { hasAny, ORGANIZATION_TAGS, PERSON_TAGS, PLACE_TAGS } from "./english-words.js";
import type { MentionKind } from "./types.js";

/** A proper name found in one sentence: tokens [first, last] of it. */
export interface NameSpan {
  first: number;
  last: number;
  name: string;
  kind: MentionKind;
  /** Demonyms ("American", "Chinese") are names, but describe too much to rank as entities. */
  demonym: boolean;
  /** The job title written before a person's name, left out of it: "CEO" of "CEO Mara Okafor", from token `first`. */
  role?: { text: string; first: number };
}

/** The name as written (without a possessive ending) and its class. */
export function describeName(
  tokens: Token[],
  first: number,
  last: number,
  text: string,
  after?: Token,
): NameSpan {
  const words = tokens.slice(first, last + 1);
  const name = text
    .slice(words[0]!.start, words[words.length - 1]!.end)
    .replace(/['’]s?$/, "")
    .replace(/\s+/g, " ");
  const demonym = words.length === 1 && words[0]!.tags.has("Demonym");
  // compromise tags "Kyelang" an organisation in "Kyelang capital" because of the word after it.
  const tagsFromNext = after !== undefined && (isOrganizationWord(after.normal) || isPlaceWord(after.normal));
  return { first, last, name, kind: nameKind(words, !tagsFromNext), demonym };
}

/** The class of a name, from compromise's tags and its organisation and place words. */
function nameKind(words: Token[], trustTags: boolean): MentionKind {
  const head = words[0]!;
  const tail = words[words.length - 1]!;
  const tagged = (names: readonly string[]) => trustTags && words.some((t) => hasAny(t.tags, names));
  if (tagged(ORGANIZATION_TAGS) || isOrganizationWord(tail.normal) || isOrganizationWord(head.normal)) {
    return "organization";
  }
  const personal = words.some((t) => hasAny(t.tags, PERSON_TAGS));
  if (personal && !isPlaceWord(tail.normal)) return "person";
  if (tagged(PLACE_TAGS) || isPlaceWord(tail.normal)) return "location";
  return "concept";
}
