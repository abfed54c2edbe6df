import { describe, expect, it } from "vitest";
import { analyzeEnglish } from "../../src/nlp/english.js";
import { singular } from "../../src/nlp/english-tokens.js";
import type { Mention } from "../../src/nlp/types.js";

function named(text: string): Mention[] {
  return analyzeEnglish(text).mentions.filter((m) => m.named);
}

function names(text: string): string[] {
  return named(text).map((m) => m.name);
}

describe("analyzeEnglish", () => {
  it("splits sentences with offsets into the text", () => {
    const text = "Dr. August Francke visited St. Louis. He left in 1862!\n\nThe end";
    const { sentences } = analyzeEnglish(text);
    expect(sentences.map((s) => s.text)).toEqual([
      "Dr. August Francke visited St. Louis.",
      "He left in 1862!",
      "The end",
    ]);
    for (const s of sentences) expect(text.slice(s.start, s.end)).toBe(s.text);
  });

  it("ends a sentence at a line break even after an abbreviation", () => {
    const { sentences } = analyzeEnglish("Moerlein Brewing Co.\n\nThe brewery opened in 1853.");
    expect(sentences.map((s) => s.text)).toEqual(["Moerlein Brewing Co.", "The brewery opened in 1853."]);
  });

  it("finds multi-word names with connectors, initials, hyphens and numbers", () => {
    expect(names("The book is about Haymo of Faversham and the Bank of the West.")).toEqual([
      "Haymo of Faversham",
      "Bank of the West",
    ]);
    expect(names("It was written by J. R. R. Tolkien and read by Jean-Luc Godard.")).toEqual([
      "J. R. R. Tolkien",
      "Jean-Luc Godard",
    ]);
    expect(names("The crew of Apollo 11 used GPT-4 with Kim Jong-un.")).toEqual([
      "Apollo 11",
      "GPT-4",
      "Kim Jong-un",
    ]);
  });

  it("drops articles, titles, possessive endings and sentence-initial function words", () => {
    expect(names("Are Christopher Nolan's films popular?")).toEqual(["Christopher Nolan"]);
    expect(names('He wrote "The Hukilau Song" in 1948.')).toEqual(["Hukilau Song"]);
    expect(names("Yesterday Dr. Smith met Mr. Jones.")).toEqual(["Smith", "Jones"]);
  });

  it("keeps a job title out of the person's name, as its role", () => {
    const roleOf = (text: string) => named(text).map((m) => [m.name, m.kind, m.role]);
    expect(roleOf("The firm hired CEO Mara Okafor in 2020.")).toEqual([["Mara Okafor", "person", "CEO"]]);
    expect(roleOf("Chief Executive Mara Okafor said so.")).toEqual([
      ["Mara Okafor", "person", "Chief Executive"],
    ]);
    expect(names("President Lena Ortiz visited Paris.")).toEqual(["Lena Ortiz", "Paris"]);
    expect(names("Chief Technology Officer Dan Wu and Vice President Kamala Harris met.")).toEqual([
      "Dan Wu",
      "Kamala Harris",
    ]);
    // A title-like word opening an organisation's or place's name stays in it.
    expect(names("General Motors bought the President Hotel in Rome.")).toEqual([
      "General Motors",
      "President Hotel",
      "Rome",
    ]);
    // No phrase is made of the title either.
    expect(analyzeEnglish("CEO Mara Okafor spoke.").mentions.map((m) => m.name)).toEqual(["Mara Okafor"]);
    expect(roleOf("Chief Financial Officer Jane Smith said the results were strong.")).toEqual([
      ["Jane Smith", "person", "Chief Financial Officer"],
    ]);
  });

  it("leaves a titled name's kind to its words, not to the title", () => {
    // The tagger does not know Osric Venn; "Professor" alone makes no sure person (see findNames).
    expect(
      named("Professor Osric Venn trained a generation of lens engineers.").map((m) => [m.name, m.kind]),
    ).toEqual([["Osric Venn", "concept"]]);
  });

  it("keeps a title-like word that opens an organisation's name, or one the text knows whole", () => {
    // One word after the title that the tagger does not know as a person's is no person's name.
    expect(names("Analysts like General Mills.")).toEqual(["General Mills"]);
    expect(names("General Patton led the army.")).toEqual(["General Patton"]);
    expect(analyzeEnglish("Admiral Foods sells fish.", undefined, ["Admiral Foods"]).mentions[0]?.name).toBe(
      "Admiral Foods",
    );
    expect(names("Admiral Grace Hopper wrote code.")).toEqual(["Grace Hopper"]);
    // A title word after a first name is a middle name; common words after a title are no one's name.
    expect(names("Katharine Sergeant Angell White wrote.")).toEqual(["Katharine Sergeant Angell White"]);
    expect(names("It uses the GNU General Public License.")).toEqual(["GNU General Public License"]);
    expect(names("It won the National Premier Leagues title.")).toEqual(["National Premier Leagues"]);
    expect(names("He was Executive Story Editor there.")).toEqual(["Executive Story Editor"]);
  });

  it("keeps a quoted title whole and a possessive inside a title", () => {
    expect(names('She sang "Welcome to the Show" on tour.')).toEqual(["Welcome to the Show"]);
    expect(names("It was printed in the Woman's Viewpoint magazine.")).toEqual(["Woman's Viewpoint"]);
  });

  it("separates a person from the organisation after 'of'", () => {
    // compromise knows "Li" as a name, so the run before "of" is a person, not part of a longer name.
    const found = named("The study was led by Professor Li Yujie of Henan University.");
    expect(found.map((m) => [m.name, m.kind])).toEqual([
      ["Li Yujie", "person"],
      ["Henan University", "organization"],
    ]);
  });

  it("classes people, places and organisations", () => {
    const found = named("Marie Curie moved from Warsaw to the University of Paris.");
    expect(found.map((m) => m.kind)).toEqual(["person", "location", "organization"]);
  });

  it("accepts a lone sentence-initial word as a name only with evidence", () => {
    expect(names("Lilu was a tribe. Records mention Lilu often.")).toEqual(["Lilu", "Lilu"]);
    expect(names("Interpretations vary widely.")).toEqual([]);
    expect(names("Monday was cold in March 1990.")).toEqual([]);
  });

  it("lemmatises noun phrases and drops determiners, pronouns and vague words", () => {
    const phrases = analyzeEnglish("Each player controls a demon made of body parts and their magical items.")
      .mentions.filter((m) => !m.named)
      .map((m) => m.name);
    expect(phrases).toEqual(["player", "demon", "body part", "magical item"]);
  });

  it("lists lemmatised content words and skips auxiliaries", () => {
    const words = analyzeEnglish("The film was directed by Nolan and has written credits.").words;
    expect(words.filter((w) => w.pos === "verb").map((w) => w.lemma)).toEqual(["direct", "write"]);
    expect(words.filter((w) => w.pos === "noun").map((w) => w.lemma)).toEqual(["film", "credit"]);
  });

  it("singularises plurals in -ses, -xes, -ches, -shes and -zzes into words", () => {
    const nouns = (text: string) =>
      analyzeEnglish(text)
        .words.filter((w) => w.pos === "noun")
        .map((w) => w.lemma);
    expect(nouns("Lumora Optics is a lens maker. It sells lenses to the buses.")).toEqual([
      "lens",
      "maker",
      "lens",
      "bus",
    ]);
    const plurals = ["lenses", "buses", "analyses", "houses", "cases", "boxes", "churches", "dishes"];
    expect([...plurals, "buzzes", "quizzes", "atlases", "lens"].map(singular)).toEqual([
      "lens",
      "bus",
      "analysis",
      "house",
      "case",
      "box",
      "church",
      "dish",
      "buzz",
      "quiz",
      "atlas",
      "lens",
    ]);
    const phrases = analyzeEnglish("It sells optical lenses and gas atlases.")
      .mentions.filter((m) => !m.named)
      .map((m) => m.name);
    expect(phrases).toEqual(["optical lens", "gas atlas"]);
  });
});

describe("a name whose first word is an ordinary adjective opening every sentence it is in", () => {
  it("keeps the adjective when the same capitalised run opens several sentences", () => {
    expect(names("Verdant Markets opened a store. Verdant Markets hired staff.")).toEqual([
      "Verdant Markets",
      "Verdant Markets",
    ]);
    expect(names("Quiet Harbor Books opened in 2019. Quiet Harbor Books sells novels.")).toEqual([
      "Quiet Harbor Books",
      "Quiet Harbor Books",
    ]);
  });

  it("keeps it when the text writes the pair inside a sentence too", () => {
    expect(names("Verdant Markets opened a store. Later, Verdant Markets hired staff.")).toEqual([
      "Verdant Markets",
      "Verdant Markets",
    ]);
  });

  it("leaves out vague adjectives and demonyms, and a run said only once", () => {
    expect(names("Early Roman history is complex. Early Roman history was written late.")).not.toContain(
      "Early Roman",
    );
    expect(names("Ancient Greek philosophy is old. Ancient Greek philosophy was taught.")).toEqual([]);
    expect(names("Many French writers came. Many French writers left.")).toEqual([]);
    expect(names("Verdant Kestrel opened a store. It hired staff.")).toEqual(["Kestrel"]);
  });

  it("keeps a sentence's first word in a name it opens: a known name, a name-opening word, an organisation's", () => {
    // The document's title names it, or the word opens many organisations' names ("General Mills").
    const title = "Verdant Mills";
    expect(analyzeEnglish("Verdant Mills grinds flour.", undefined, [title]).mentions[0]?.name).toBe(title);
    expect(names("Verdant Mills grinds flour.")).toEqual(["Mills"]);
    expect(names("General Mills reported earnings. The company is based in Minneapolis.")).toEqual([
      "General Mills",
      "Minneapolis",
    ]);
    // An organisation's word ends the run: "Verdant Markets", "Southern Company".
    expect(names("Verdant Markets opened a store. It hired staff.")).toEqual(["Verdant Markets"]);
    expect(names("Southern Company sells power.")).toEqual(["Southern Company"]);
    // Ordinary opening words stay out, and make no name alone.
    expect(names("The company grew. However, it fell. General relativity is hard.")).toEqual([]);
    expect(names("Early Roman history is complex.")).not.toContain("Early Roman");
  });
});

describe("names in a table row as text", () => {
  it("end at the gap between cells: a supplier and its year are two things", () => {
    // html-to-text lays a table out in columns three or more spaces apart, one row a line.
    const text = "Supplier              Since\nHeliotrope Robotics   2020\nQuayside Analytics\t2022\n";
    expect(names(text)).toEqual(["Heliotrope Robotics", "Quayside Analytics"]);
    // One space still joins a name and its number.
    expect(names("The Apollo 11 crew landed.")).toContain("Apollo 11");
  });
});
