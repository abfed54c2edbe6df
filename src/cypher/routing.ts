/**
 * Questions about themes, summaries or what a corpus is about cannot be computed by a Cypher
 * query: they need reading the text, which the GraphRAG query modes do. This cheap check catches
 * the obvious ones before any model call; the model's NO_CYPHER reply catches the rest.
 */
const NEEDS_READING = [
  /\bthem(e|es|atic)\b/i,
  /\bsummar(y|ies|ise|ize|ised|ized)\b/i,
  /\boverview\b/i,
  /\bgist\b/i,
  /\bbig picture\b/i,
  /\bmain (topics?|ideas?|points?|arguments?|messages?)\b/i,
  /\bkey (ideas|takeaways|points|insights|messages)\b/i,
  /\bwhat (is|are) (this|these|the) (corpus|collection|dataset|documents?|texts?|books?|graph|files?)( \w+)? about\b/i,
  /\bwhat (does|do) (this|these|the) (corpus|collection|documents?|texts?|books?) (say|cover|discuss)\b/i,
];

export type QuestionRoute = "cypher" | "rag";

export function routeQuestion(question: string): QuestionRoute {
  return NEEDS_READING.some((pattern) => pattern.test(question)) ? "rag" : "cypher";
}
