/** Small English word lists the name and phrase finders need beyond compromise's tags. */

/** Lower-case words allowed inside a name between capitalised words: "Haymo of Faversham". */
export const NAME_CONNECTORS = words(`
  of for de du da di del della des van von der den la le y
`);
/** May follow a connector: "Bank of the West", "Pierre de la Rue". */
export const CONNECTOR_ARTICLES = words(`
  the la le de der den l
`);

/** Tags of capitalised words that start or end a sentence's span but are not part of a name. */
export const FUNCTION_TAGS = [
  "Determiner",
  "Pronoun",
  "Preposition",
  "Conjunction",
  "QuestionWord",
  "Honorific",
  "Copula",
  "Auxiliary",
  "Modal",
  "Negative",
  "Expression",
];
/** At a sentence start every word is capitalised; these tags mark ordinary words there. */
export const SENTENCE_START_TAGS = ["Verb", "Adverb", "Adjective", "Value", "Date"];
/** Tags that say a capitalised word is a name even alone at a sentence start. */
export const NAME_TAGS = ["ProperNoun", "Person", "Place", "Organization", "Acronym"];

export const ORGANIZATION_TAGS = ["Organization", "Company", "SportsTeam", "School"];
export const PLACE_TAGS = ["Place", "Country", "City", "Region", "Address"];
export const PERSON_TAGS = ["Person", "FirstName", "LastName", "MaleName", "FemaleName"];

/** Calendar words are capitalised but are dates, not entities ("March 1990", "Monday"). */
export const CALENDAR_WORDS = words(`
  january february march april may june july august september october november december jan feb mar
  apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday
`);

/** Adjectives that qualify nothing worth keeping in a noun phrase ("the other player"). */
export const STOP_ADJECTIVES = words(`
  other many much more most several various same such own certain different new first second third
  last next previous following main major few less least only whole entire particular specific better
  best known well-known better-known former latter early late great good small large big little high
  low old young total full real original similar important general common further additional current
`);

/** Nouns too general to be a concept of their own. */
export const GENERIC_NOUNS = words(`
  thing way lot kind sort type part number time year day month week example instance case fact use
  one ones other others something anything everything nothing someone anyone everyone nobody people
  person member place group name term form end side point area order list result set series couple
  bit piece amount level line question answer reason matter issue aspect version idea state status
  total rest majority variety range half top bottom front back beginning start there here best worst
`);

/** Verbs that carry no theme of their own in a relationship keyword. */
export const LIGHT_VERBS = words(`
  be have do get go let make take give say can will would shall should may might must could include
  become use know see call name seem come put keep
`);

/** Words compromise's pattern rules occasionally tag as nouns ("the island of Oahu"). */
export const FUNCTION_WORDS = words(`
  of in on at to for with by from and or but nor the a an as into onto over under about than then so
`);

/** Tags of words that never belong to a common noun phrase. */
export const NON_PHRASE_TAGS = [
  "Pronoun",
  "Determiner",
  "Value",
  "Possessive",
  "QuestionWord",
  "Preposition",
  "Conjunction",
];

/**
 * Job and office titles written before a person's name ("CEO Mara Okafor", "President Lena
 * Ortiz"): the name is the person's without them ("Dean" is left out: it is a first name as often).
 * Nobility and saints stay part of the name
 * ("Queen Elizabeth", "St. Louis"); honorifics ("Dr.", "Mr.") are compromise's Honorific tag.
 */
export const JOB_TITLES = words(`
  ceo cfo cto coo cio cmo president chairman chairwoman chairperson chair director executive officer
  founder co-founder cofounder manager minister premier secretary senator congressman congresswoman
  representative governor mayor ambassador commissioner chancellor treasurer spokesman spokeswoman
  spokesperson professor prof judge justice provost coach editor general colonel captain
  lieutenant admiral sergeant commander
`);
/**
 * Capitalised words that open many organisations' and places' names ("General Mills", "United
 * Airlines", "National Gallery"): opening a sentence before another capitalised word, they are the
 * name's first word, not just the sentence's.
 */
export const NAME_OPENING_WORDS = words(`
  general national united royal federal international central western eastern northern southern
  imperial universal continental standard
`);
/** Words that qualify a job title: "Chief Executive", "Vice President", "Former CEO". */
export const TITLE_MODIFIERS = words(`
  chief vice deputy senior acting former interim assistant associate managing prime lead head
`);

/** A word list written as whitespace-separated words. */
function words(list: string): Set<string> {
  return new Set(list.split(/\s+/).filter(Boolean));
}

export function hasAny(tags: ReadonlySet<string>, names: readonly string[]): boolean {
  for (const name of names) if (tags.has(name)) return true;
  return false;
}
