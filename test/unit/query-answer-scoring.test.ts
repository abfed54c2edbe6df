import { describe, expect, it } from "vitest";
import { analyzeText } from "../../src/nlp/analyze.js";
import { verbsDoneToNames } from "../../src/query/answer/done-to-names.js";
import { extractiveAnswer } from "../../src/query/answer/extractive-answer.js";
import { resolveSubjects, subjectName } from "../../src/query/answer/pronoun.js";
import {
  isThemeQuestion,
  questionClauses,
  questionOptions,
  questionType,
} from "../../src/query/answer/question-type.js";
import type { ContextChunk, Reference } from "../../src/query/result.js";

const mentionsOf = (s: string) => analyzeText(s).mentions;

function context(passages: [title: string, text: string][]): {
  chunks: ContextChunk[];
  references: Reference[];
} {
  const chunks = passages.map(([, text], i) => ({ id: `c${i}`, docId: `d${i}`, text, score: 1 }));
  const references = passages.map(([title], i) => ({
    n: i + 1,
    docId: `d${i}`,
    title,
    chunkId: `c${i}`,
    start: 0,
    end: 1,
  }));
  return { chunks, references };
}

/** The quoted sentences, without the label line. */
function quoted(question: string, passages: [string, string][]): string[] {
  const { chunks, references } = context(passages);
  return extractiveAnswer(question, chunks, references).split("\n").slice(1);
}

describe("question types", () => {
  it("reads who / where / when / how many and which-noun questions", () => {
    expect(questionType("Who founded Corvane Shipping?").kinds).toEqual(["person"]);
    expect(questionType("Where was Idris Vale born?").kinds).toEqual(["place"]);
    expect(questionType("In what year was the bridge opened?").kinds).toEqual(["time"]);
    expect(questionType("How many people work there?").kinds).toEqual(["number"]);
    expect(questionType("Which professor taught her?").kinds).toEqual(["person"]);
    expect(questionType("Which company makes it, and who founded it?").kinds).toEqual(["entity", "person"]);
  });

  it("reads the Chinese forms", () => {
    expect(questionType("林晓舟是谁？").kinds).toEqual(["person"]);
    expect(questionType("她出生在哪里？").kinds).toEqual(["place"]);
    expect(questionType("青岚科技哪一年成立？").kinds).toEqual(["time"]);
    expect(questionType("公司有多少员工？").kinds).toEqual(["number"]);
    expect(questionType("哪个城市有灯会？").kinds).toEqual(["place"]);
    expect(questionType("听潮芯片是哪家公司研发的？").kinds).toEqual(["entity"]);
  });

  it("splits a question of two parts", () => {
    expect(questionClauses("听潮芯片是哪家公司研发的？这家公司的创始人出生在哪里？")).toHaveLength(2);
    expect(questionClauses("Which company supplies the lenses, and who founded it?")).toEqual([
      "Which company supplies the lenses",
      "who founded it",
    ]);
  });

  it("tells whole-corpus questions from questions about a named thing", () => {
    expect(isThemeQuestion("What are the main themes of this collection?")).toBe(true);
    expect(isThemeQuestion("这些文档的主要主题是什么？")).toBe(true);
    expect(isThemeQuestion("What are the main themes of Hamlet?")).toBe(false);
    // Asking which groups or categories the corpus falls into is asking about all of it.
    expect(isThemeQuestion("What groups are there?")).toBe(true);
    expect(isThemeQuestion("Which categories of documents exist?")).toBe(true);
    expect(isThemeQuestion("Which group released the album Harbour Lights?")).toBe(false);
    // questionType reads the question as asked (its names are capitalised), not lower-cased.
    expect(questionType("Which group released the album Harbour Lights?").theme).toBe(false);
    expect(questionType("What are the main themes of Hamlet?").theme).toBe(false);
    expect(questionType("What groups are there?").theme).toBe(true);
    expect(isThemeQuestion("青岚科技的主要产品是什么？")).toBe(false);
  });
});

describe("pronoun resolution", () => {
  it("resolves an opening pronoun to the passage's title, English and Chinese", () => {
    const sentences = ["Corvane Shipping runs ferries.", "It was founded in 1987 by Tomas Arkwright."];
    expect(resolveSubjects(sentences, "Corvane Shipping", mentionsOf)).toEqual([null, "Corvane Shipping"]);
    expect(resolveSubjects(["她于1981年出生在白湾镇。"], "林晓舟", mentionsOf)).toEqual(["林晓舟"]);
    expect(
      resolveSubjects(["The company's main product is the Gullwing."], "Tidewell Robotics", mentionsOf),
    ).toEqual(["Tidewell Robotics"]);
  });

  it("without a title, resolves to the name the sentence before opened with", () => {
    const sentences = ["Corvane Shipping runs ferries.", "It was founded in 1987."];
    expect(resolveSubjects(sentences, "notes.txt", mentionsOf)).toEqual([null, "Corvane Shipping"]);
  });

  it("reads the subject a title names", () => {
    expect(subjectName("Lilu (mythology)")).toBe("Lilu");
    expect(subjectName("Mara Quell: a profile")).toBe("Mara Quell");
    expect(subjectName("vessen.txt")).toBeNull();
  });
});

describe("extractive answer scoring", () => {
  it("answers who founded a company from a sentence that names it only by a pronoun", () => {
    const lines = quoted("Who founded Corvane Shipping?", [
      ["Harbour news", "Corvane Shipping ferries left the harbour late on Monday."],
      [
        "Corvane Shipping",
        "Corvane Shipping is a ferry operator. It was founded in 1987 by Tomas Arkwright.",
      ],
    ]);
    expect(lines[0]).toBe("It was founded in 1987 by Tomas Arkwright. [2]");
  });

  it("does not answer for a name that a passive sentence about another subject holds in passing", () => {
    const tidewell: [string, string] = [
      "Tidewell Robotics",
      "Tidewell Robotics builds survey drones. It was founded in 2016 by Idris Vale, a former engineer at Lumora Optics.",
    ];
    const lumora: [string, string] = ["Lumora Optics", "Lumora Optics is a lens maker in Vessen."];
    const mara: [string, string] = [
      "Mara Quell",
      "Mara Quell grew up in Port Ellery. She founded Lumora Optics in 2009.",
    ];
    const lines = quoted("Who founded Lumora Optics?", [tidewell, lumora, mara]);
    expect(lines[0]).toBe("She founded Lumora Optics in 2009. [3]");
    expect(lines.join("\n")).not.toContain("Idris Vale");
    // Asked about its own subject, the same sentence answers.
    expect(quoted("Who founded Tidewell Robotics?", [tidewell, lumora, mara])[0]).toBe(
      "It was founded in 2016 by Idris Vale, a former engineer at Lumora Optics. [1]",
    );
  });

  it("tells which verbs a question asks about as done to the names it holds", () => {
    const names = ["Lumora Optics"];
    const done = (question: string) => [...verbsDoneToNames(question, names)];
    expect(done("Who founded Lumora Optics?")).toContain("found");
    expect(done("When was Lumora Optics founded?")).toContain("found");
    expect(done("Who is the founder of Lumora Optics?")).toEqual(["found"]);
    expect(done("What did Lumora Optics make?")).toEqual([]);
    expect(done("Which drones carry lenses from Lumora Optics?")).toEqual([]);
  });

  it("prefers the sentence holding the kind of answer asked for", () => {
    const passages: [string, string][] = [
      [
        "Lumora Optics",
        "Lumora Optics grinds lenses for survey drones. Lumora Optics employs about 140 people.",
      ],
    ];
    expect(quoted("How many people does Lumora Optics employ?", passages)[0]).toContain("140 people");
    const where: [string, string][] = [
      [
        "Mara Quell",
        "Mara Quell was born into a family of compass makers. Mara Quell was born in Port Ellery.",
      ],
    ];
    expect(quoted("Where was Mara Quell born?", where)[0]).toBe("Mara Quell was born in Port Ellery. [1]");
  });

  it("answers a Chinese two-part question in both parts, the second from the bridge passage", () => {
    const lines = quoted("听潮芯片是哪家公司研发的？这家公司的创始人出生在哪里？", [
      ["青岚科技", "青岚科技是一家芯片设计公司，由林晓舟创立。青岚科技最重要的产品是听潮芯片。"],
      ["林晓舟", "林晓舟毕业于澄州大学。她于1981年出生在白湾镇，一个海边小镇。"],
    ]);
    expect(lines.join("\n")).toContain("青岚科技");
    expect(lines.join("\n")).toContain("她于1981年出生在白湾镇，一个海边小镇。 [2]");
  });

  it("answers a two-hop question from the passage reached through the linking entity", () => {
    const lines = quoted("Who directed the film that was shot in Leland in 1986?", [
      [
        "Leland, North Carolina",
        "Leland is a town in Brunswick County. Maximum Overdrive was shot in Leland in 1986.",
      ],
      ["Maximum Overdrive", "Maximum Overdrive is a horror film. It was directed by Stephen King."],
      ["Wilmington", "Wilmington is a port city with film studios."],
    ]);
    expect(lines.slice(0, 2).join("\n")).toContain("It was directed by Stephen King. [2]");
  });

  it("takes the second hop from the passage a quoted sentence names, over sentences sharing more words", () => {
    // The pick naming the Saltmere Gulls says which team; only the Gulls' passage says where it is
    // based, and the Tarn Rovers' sentence shares more of the question's words.
    const lines = quoted("From 1990 to 1995 Osric Venn played for a football team based in what state?", [
      ["Osric Venn", "Osric Venn is a retired footballer. He played for the Saltmere Gulls (1990-1995)."],
      ["Harbor Kites", "The Harbor Kites are a football team that plays in the state of Corland."],
      ["Tarn Rovers", "The Tarn Rovers football team plays in the state of Estmark."],
      ["Saltmere Gulls", "The Saltmere Gulls are a club based in Vessen, Dunmoor."],
    ]);
    expect(lines).toContain("He played for the Saltmere Gulls (1990-1995). [1]");
    expect(lines).toContain("The Saltmere Gulls are a club based in Vessen, Dunmoor. [4]");
  });

  it("takes the second hop for a question asking no kind of answer too", () => {
    // "What position" asks for no person, place, time or number: the hop alone finds the answer.
    const lines = quoted("What position did the winner of the 2009 Golden Boot play?", [
      ["Golden Boot 2009", "The Golden Boot of 2009 was given to Osric Venn."],
      ["Tarn Rovers", "Every position at the Tarn Rovers is played by a winner."],
      ["Harbor Kites", "Position play won the Harbor Kites the cup in 2009."],
      ["Dunmoor", "The winner of the Dunmoor cup plays in any position."],
      ["Osric Venn", "Osric Venn is a footballer. He plays as a goalkeeper for the Saltmere Gulls."],
    ]);
    expect(lines[0]).toBe("The Golden Boot of 2009 was given to Osric Venn. [1]");
    expect(lines).toContain("He plays as a goalkeeper for the Saltmere Gulls. [5]");
  });

  it("answers a whole-corpus question with each passage's opening sentence", () => {
    const lines = quoted("What are the main themes?", [
      ["Vessen", "Vessen: a city guide\n\nVessen is a river city. Its main product is glass."],
      ["Tidewell Robotics", "Tidewell Robotics builds survey drones. Its main product is the Gullwing."],
    ]);
    expect(lines).toEqual(["Vessen is a river city. [1]", "Tidewell Robotics builds survey drones. [2]"]);
  });

  it("quotes a sentence naming each option of a choice question", () => {
    // Without a sentence per option, "He ... first" (on Osric Venn, by its pronoun) and the
    // unrelated sentence sharing "born" and "first" fill the answer, and Mara Quell is never named.
    const lines = quoted("Who was born first, Mara Quell or Osric Venn?", [
      ["Mara Quell", "Mara Quell was an optician who ground lenses in Vessen."],
      [
        "Osric Venn",
        "Osric Venn was a footballer from Dunmoor. He was the first to score for the Saltmere Gulls, in 1901.",
      ],
      ["Idris Vale", "Born in Port Ellery, Idris Vale was among the first engineers there."],
    ]);
    expect(lines).toContain("Mara Quell was an optician who ground lenses in Vessen. [1]");
    expect(lines).toContain("Osric Venn was a footballer from Dunmoor. [2]");
  });

  it("reads the options of a choice question", () => {
    expect(questionOptions("Who was born first, Giotto or Frederick Law Olmsted?")).toEqual([
      "Giotto",
      "Frederick Law Olmsted",
    ]);
    expect(questionOptions("Which band was formed first The Exies or Circus Diablo ?")).toEqual([
      "The Exies",
      "Circus Diablo",
    ]);
    expect(
      questionOptions("Which came first the forming of The Dandy Warhols or the birth of Robert Young?"),
    ).toEqual(["The Dandy Warhols", "Robert Young"]);
    expect(
      questionOptions("Who directed the film that was shot in or around Leland, North Carolina?"),
    ).toEqual([]);
  });

  it("answers a yes/no question about two named things with a verdict before the quotes", () => {
    const passages: [string, string][] = [
      ["Mara Quell", "Mara Quell is an English film director. She was born in Vessen."],
      ["Osric Venn", "Osric Venn is an Indian film and documentary director."],
      ["Idris Vale", "Idris Vale is a Welsh stage actor."],
    ];
    expect(quoted("Are Mara Quell and Osric Venn both film directors?", passages)[0]).toBe(
      'Yes: the passages say "film directors" of each.',
    );
    expect(quoted("Are Mara Quell and Idris Vale both film directors?", passages)[0]).toBe(
      'No, as far as the passages say: none says "film directors" of Idris Vale.',
    );
    expect(quoted("Are Mara Quell and Osric Venn from the same town?", passages)[0]).toMatch(/^No, /);
    // Not a yes/no question about two things: no verdict.
    expect(quoted("Is Mara Quell a film director?", passages)[0]).toMatch(/\[1\]$/);
  });

  it("gives no verdict on a negated predicate (its content words leave the negation out)", () => {
    const passages: [string, string][] = [
      ["Mara Quell", "Mara Quell is an English film director. She was born in Vessen."],
      ["Osric Venn", "Osric Venn is an Indian film and documentary director."],
    ];
    for (const question of [
      "Are Mara Quell and Osric Venn both not film directors?",
      "Were Mara Quell and Osric Venn both never film directors?",
    ])
      expect(quoted(question, passages)[0]).not.toMatch(/^(Yes|No)\b/);
  });

  it("gives no verdict when the predicate goes on past a comma, offers alternatives or asks more", () => {
    const passages: [string, string][] = [
      ["Mara Quell", "Mara Quell is an English film director. She was born in Vessen."],
      ["Osric Venn", "Osric Venn is an Indian film and documentary director."],
    ];
    for (const question of [
      "Are Mara Quell and Osric Venn both film directors, and where was Mara Quell born?",
      "Were Mara Quell and Osric Venn both film directors, or only one?",
      "Are Mara Quell and Osric Venn both film directors or stage actors?",
      "Are Mara Quell and Osric Venn both film directors and which was born in Vessen?",
    ])
      expect(quoted(question, passages)[0]).not.toMatch(/^(Yes|No)\b/);
    // A relative "who" is part of what is asked of each.
    const makers: [string, string][] = [
      ["Mara Quell", "Mara Quell is a director who made films in Vessen."],
      ["Osric Venn", "Osric Venn is a director who made films in Pune."],
    ];
    expect(quoted("Are Mara Quell and Osric Venn both directors who made films?", makers)[0]).toMatch(
      /^Yes\b/,
    );
  });
});
