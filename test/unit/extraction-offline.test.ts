import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OfflineNlpExtractor } from "../../src/extraction/offline-extractor.js";
import { titleEntityName } from "../../src/extraction/offline-title.js";
import { entityKey } from "../../src/merge/keys.js";
import type { ChunkRecord, Extraction } from "../../src/types.js";

const CURIE = [
  "Marie Curie was a physicist and chemist who worked at the University of Paris.",
  "She was born in Warsaw, Poland.",
  "Curie won the Nobel Prize with Pierre Curie in 1903.",
  "The Curie Institute in Paris was founded in 1920 to honour her research on radioactivity.",
  "They said it was theirs.",
].join(" ");

const ALIBABA =
  "马云在杭州创立了阿里巴巴。阿里巴巴集团是一家总部位于中国杭州的跨国科技公司。他后来成为了中国最富有的人之一。";

function chunk(text: string, start = 0): ChunkRecord {
  return { id: "c", docId: "d", index: start > 0 ? 1 : 0, text, tokens: 0, start, end: start + text.length };
}

async function extract(text: string, title = "", start = 0): Promise<Extraction> {
  const outcome = await new OfflineNlpExtractor().extract(chunk(text, start), { title });
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.extraction;
}

function typeOf(extraction: Extraction, name: string): string | undefined {
  return extraction.entities.find((e) => entityKey(e.name) === entityKey(name))?.type;
}

function related(extraction: Extraction, a: string, b: string): boolean {
  const pair = [entityKey(a), entityKey(b)].sort().join("|");
  return extraction.relationships.some(
    (r) => [entityKey(r.source), entityKey(r.target)].sort().join("|") === pair,
  );
}

const PRONOUNS = ["she", "her", "they", "it", "theirs", "he", "他", "她", "它"];

describe("OfflineNlpExtractor on English", () => {
  it("finds people, places and organisations with their types", async () => {
    const extraction = await extract(CURIE, "Marie Curie");
    expect(typeOf(extraction, "Marie Curie")).toBe("person");
    expect(typeOf(extraction, "Pierre Curie")).toBe("person");
    expect(typeOf(extraction, "Warsaw")).toBe("location");
    expect(typeOf(extraction, "Poland")).toBe("location");
    expect(typeOf(extraction, "University of Paris")).toBe("organization");
    expect(typeOf(extraction, "Curie Institute")).toBe("organization");
    expect(typeOf(extraction, "radioactivity")).toBe("concept");
  });

  it("never makes pronouns or bare years into entities", async () => {
    const names = (await extract(CURIE, "Marie Curie")).entities.map((e) => entityKey(e.name));
    for (const pronoun of PRONOUNS) expect(names).not.toContain(pronoun);
    expect(names).not.toContain("1903");
  });

  it("describes an entity by the sentences it appears in", async () => {
    const extraction = await extract(CURIE, "Marie Curie");
    const warsaw = extraction.entities.find((e) => e.name === "Warsaw");
    expect(warsaw?.description).toBe("She was born in Warsaw, Poland.");
  });

  it("describes an organisation or place by a he/she sentence only when nothing else names it", async () => {
    const text = [
      "Helena Marsh grew up in Portsmouth.",
      "She studied economics at Leeds before joining the Brightwater Harbor Authority in 2004.",
      "The Brightwater Harbor Authority manages the port of Brightwater.",
    ].join(" ");
    const extraction = await extract(text, "harbor.txt");
    const describe = (name: string) => extraction.entities.find((e) => e.name === name)?.description;
    expect(describe("Brightwater Harbor Authority")).toBe(
      "The Brightwater Harbor Authority manages the port of Brightwater.",
    );
    // compromise reads "Marsh" as a place word; the "She" after her name makes her a person.
    expect(typeOf(extraction, "Helena Marsh")).toBe("person");
    expect(describe("Helena Marsh")).toBe(
      "Helena Marsh grew up in Portsmouth. She studied economics at Leeds before joining the Brightwater Harbor Authority in 2004.",
    );
    // Leeds has no other sentence: the one about Helena Marsh is better than its bare name.
    expect(describe("Leeds")).toBe(
      "She studied economics at Leeds before joining the Brightwater Harbor Authority in 2004.",
    );
  });

  it("describes a person by the he/she sentences after the sentence the person's name opens", async () => {
    const text = [
      "Mara Okafor grew up in Portsmouth.",
      "She studied economics at Leeds.",
      "Tom Reed joined the Brightwater Harbor Authority in 2004.",
      "He runs its pilot service.",
    ].join(" ");
    const extraction = await extract(text, "harbor.txt");
    const describe = (name: string) => extraction.entities.find((e) => e.name === name)?.description;
    expect(describe("Mara Okafor")).toBe(
      "Mara Okafor grew up in Portsmouth. She studied economics at Leeds.",
    );
    expect(describe("Tom Reed")).toBe(
      "Tom Reed joined the Brightwater Harbor Authority in 2004. He runs its pilot service.",
    );
  });

  it("names a person without the job title before the name, and gives the title in the description", async () => {
    const text = "Harbor Labs makes sensors. CEO Mara Okafor leads Harbor Labs.";
    const extraction = await extract(text, "Harbor Labs");
    const okafor = extraction.entities.find((e) => e.name === "Mara Okafor");
    expect(okafor?.type).toBe("person");
    expect(okafor?.description).toBe("Mara Okafor, CEO. CEO Mara Okafor leads Harbor Labs.");
    expect(extraction.entities.map((e) => e.name)).not.toContain("CEO Mara Okafor");
  });

  it("keeps the first word of the document's title where a sentence opens with it", async () => {
    // "Verdant" alone opening a sentence would be just its first word: "Mills".
    const extraction = await extract(
      "Verdant Mills\n\nVerdant Mills grinds flour in Saltmere.",
      "Verdant Mills",
    );
    const names = extraction.entities.map((e) => e.name);
    expect(names).toContain("Verdant Mills");
    expect(names).not.toContain("Mills");
  });

  it("quotes a chunk's opening that continues a sentence begun before it only as a last resort, marked", async () => {
    // A chunk cut from inside its document opens with the end of the previous chunk's sentence.
    const text = [
      "met Sofia Bakker in Leiden to discuss the Harbour project.",
      "Sofia Bakker later led the Harbour project from Rotterdam.",
    ].join(" ");
    const inside = await extract(text, "", 640);
    const sofia = inside.entities.find((e) => e.name === "Sofia Bakker");
    expect(sofia?.description).toBe("Sofia Bakker later led the Harbour project from Rotterdam.");
    const leiden = inside.entities.find((e) => e.name === "Leiden");
    expect(leiden?.description).toBe("…met Sofia Bakker in Leiden to discuss the Harbour project.");
    const pair = inside.relationships.find((r) =>
      related({ ...inside, relationships: [r] }, "Sofia Bakker", "Harbour"),
    );
    expect(pair?.description).toBe("Sofia Bakker later led the Harbour project from Rotterdam.");
    // The same text at the start of its document is read as written.
    const atStart = await extract(text, "", 0);
    expect(atStart.entities.find((e) => e.name === "Leiden")?.description).toBe(
      "met Sofia Bakker in Leiden to discuss the Harbour project.",
    );
  });

  it("relates entities of the same sentence more strongly than through the title alone", async () => {
    const extraction = await extract(CURIE, "Marie Curie");
    const sameSentence = extraction.relationships.find((r) =>
      related({ ...extraction, relationships: [r] }, "Warsaw", "Poland"),
    );
    expect(sameSentence?.description).toBe("She was born in Warsaw, Poland.");
    expect(sameSentence?.keywords).toContain("born");
    const titleOnly = extraction.relationships.find((r) =>
      related({ ...extraction, relationships: [r] }, "Marie Curie", "Warsaw"),
    );
    expect(titleOnly).toBeDefined();
    expect(titleOnly!.strength).toBeLessThan(sameSentence!.strength);
  });

  it("keeps relationship keywords free of the two names", async () => {
    const extraction = await extract(CURIE, "Marie Curie");
    for (const r of extraction.relationships) {
      for (const keyword of r.keywords) {
        expect(r.source.toLowerCase()).not.toContain(keyword);
        expect(r.target.toLowerCase()).not.toContain(keyword);
      }
    }
  });

  it("makes the title an entity only when the text names it, in its words or its own case", async () => {
    const named = await extract(
      "Christopher Edward Nolan is a film director. His films include Inception.",
      "Christopher Nolan",
    );
    expect(named.entities[0]?.name).toBe("Christopher Nolan");
    expect(related(named, "Christopher Nolan", "Inception")).toBe(true);
    const lowerCase = await extract("The demon algorithm is a Monte Carlo method.", "Demon algorithm");
    expect(lowerCase.entities[0]?.name).toBe("Demon algorithm");
    // Only a pronoun: the text is about what the title names, so it is an entity all the same.
    const unnamed = await extract(
      "It is a 2010 science fiction film directed by Christopher Nolan.",
      "Inception (film)",
    );
    expect(unnamed.entities.map((e) => e.name)).toContain("Christopher Nolan");
    expect(related(unnamed, "Inception", "Christopher Nolan")).toBe(true);
  });

  it("reads a sentence that only says the title as a sentence, not as the title line", async () => {
    const extraction = await extract(
      "Pick Me Up! is a British weekly women's magazine published by IPC Media.",
      "Pick Me Up (magazine)",
    );
    expect(extraction.entities[0]?.name).toBe("Pick Me Up");
    expect(related(extraction, "Pick Me Up", "IPC Media")).toBe(true);
  });

  it("keeps a name glossed in Chinese characters in an English sentence", async () => {
    const extraction = await extract(
      "The Jingdezhen Ceramic Institute (景德镇陶瓷大学) is situated in Jingdezhen in Jiangxi province.",
      "Jingdezhen Ceramic Institute",
    );
    expect(extraction.entities.map((e) => e.name)).toContain("景德镇陶瓷大学");
  });

  it("makes no entity of a document's title or headings that only head it", async () => {
    const report = [
      "# Quarterly Report",
      "",
      "## Revenue Overview",
      "",
      "Northwind Traders grew revenue by 12% in the third quarter.",
      "",
      "## Outlook",
      "",
      "Maria Lopez expects Northwind Traders to open a store in Portland.",
    ].join("\n");
    const names = (await extract(report, "Quarterly Report")).entities.map((e) => entityKey(e.name));
    expect(names).toEqual(expect.arrayContaining(["northwind traders", "maria lopez", "portland"]));
    for (const heading of ["quarterly report", "report", "revenue overview", "outlook"])
      expect(names).not.toContain(heading);
    // Another passage that names the report as a thing makes it an entity there.
    const review = await extract(
      "Anna Berg wrote a review of the Quarterly Report published by Northwind Traders.",
      "Reading list",
    );
    expect(review.entities.map((e) => e.name)).toContain("Quarterly Report");
    expect(review.entities.map((e) => e.name)).not.toContain("Reading list");
  });

  it("makes an entity of a title the text refers back to with a pronoun, in its first chunk only", async () => {
    const about = await extract(
      "Corvane Shipping\n\nIt was founded in 1987 by Tomas Arkwright.",
      "Corvane Shipping",
    );
    expect(about.entities.map((e) => e.name)).toContain("Corvane Shipping");
    const poet = await extract("他生于杭州，后来成为诗人。", "林逋");
    expect(poet.entities.map((e) => e.name)).toContain("林逋");
    // Later in the document a pronoun refers to whatever came before the cut, not to the title.
    const later = await extract("It was sold in 2001 to Tomas Arkwright.", "Corvane Shipping", 500);
    expect(later.entities.map((e) => e.name)).not.toContain("Corvane Shipping");
  });

  it("does not make a file name into an entity", async () => {
    const extraction = await extract("Christopher Nolan directed Inception.", "notes.txt");
    expect(extraction.entities.map((e) => e.name)).not.toContain("notes.txt");
  });

  it("gives a linking entity the same name in a passage about it and in one that mentions it", async () => {
    const film = await extract(
      "Inception is a 2010 film written and directed by Christopher Nolan.",
      "Inception",
    );
    const person = await extract("Christopher Nolan is a British-American filmmaker.", "Christopher Nolan");
    const filmKeys = new Set(film.entities.map((e) => entityKey(e.name)));
    const personKeys = new Set(person.entities.map((e) => entityKey(e.name)));
    expect(filmKeys.has("christopher nolan")).toBe(true);
    expect(personKeys.has("christopher nolan")).toBe(true);
  });

  it("bounds entities and relationships per chunk", async () => {
    const sentences = Array.from(
      { length: 40 },
      (_, i) => `Alpha${i} Smith met Beta${i} Jones and Gamma${i} Brown in Delta${i} City.`,
    );
    const outcome = await new OfflineNlpExtractor({
      maxEntitiesPerChunk: 25,
      maxRelationshipsPerChunk: 30,
    }).extract(chunk(sentences.join(" ")), { title: "Delta39 City" });
    expect(outcome.ok && outcome.extraction.entities.length).toBe(25);
    expect(outcome.ok && outcome.extraction.relationships.length).toBe(30);
    // The title entity is kept first, though named once, in the last sentence.
    expect(outcome.ok && outcome.extraction.entities[0]?.name).toBe("Delta39 City");
  });

  it("is deterministic", async () => {
    expect(await extract(CURIE, "Marie Curie")).toEqual(await extract(CURIE, "Marie Curie"));
  });
});

describe("OfflineNlpExtractor on Chinese", () => {
  it("finds 马云, 杭州 and 阿里巴巴 and relates them", async () => {
    const extraction = await extract("马云在杭州创立了阿里巴巴。", "");
    const names = extraction.entities.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(["马云", "杭州", "阿里巴巴"]));
    expect(typeOf(extraction, "马云")).toBe("person");
    expect(typeOf(extraction, "杭州")).toBe("location");
    expect(related(extraction, "马云", "杭州")).toBe(true);
    expect(related(extraction, "马云", "阿里巴巴")).toBe(true);
    expect(related(extraction, "杭州", "阿里巴巴")).toBe(true);
    const founding = extraction.relationships.find((r) =>
      related({ ...extraction, relationships: [r] }, "马云", "阿里巴巴"),
    );
    expect(founding?.description).toBe("马云在杭州创立了阿里巴巴。");
    expect(founding?.keywords).toContain("创立");
  });

  it("describes an organisation by a 他/她 sentence only when nothing else names it", async () => {
    const extraction = await extract(
      "周文澜生于南京。她在江宁船厂工作了三十年。江宁船厂位于长江边。",
      "zh.txt",
    );
    const describe = (name: string) => extraction.entities.find((e) => e.name === name)?.description;
    expect(describe("江宁船厂")).toBe("江宁船厂位于长江边。");
    expect(describe("周文澜")).toContain("她在江宁船厂工作了三十年。");
  });

  it("keeps Chinese descriptions, the title entity and no pronouns", async () => {
    const extraction = await extract(ALIBABA, "阿里巴巴");
    expect(typeOf(extraction, "阿里巴巴集团")).toBe("organization");
    expect(extraction.entities[0]?.name).toBe("阿里巴巴");
    const names = extraction.entities.map((e) => e.name);
    for (const pronoun of PRONOUNS) expect(names).not.toContain(pronoun);
    expect(extraction.entities.find((e) => e.name === "中国")?.description).toContain("中国");
  });

  it("handles English and Chinese in one chunk", async () => {
    const extraction = await extract("Inception was directed by Christopher Nolan. 诺兰出生于伦敦。", "");
    const keys = extraction.entities.map((e) => entityKey(e.name));
    expect(keys).toEqual(expect.arrayContaining(["christopher nolan", "inception", "伦敦"]));
    expect(typeOf(extraction, "伦敦")).toBe("location");
    expect(related(extraction, "Christopher Nolan", "Inception")).toBe(true);
  });
});

const TIDEWELL_MD = [
  "# Tidewell Robotics",
  "",
  "Tidewell Robotics builds **survey drones** for [coastal work](https://tidewell.example/coast).",
  "",
  "## Founding",
  "It was founded in 2016 in _Carrow Bay_ by Idris Vale.",
  "",
  "- The **Gullwing** drone carries `Halcyon` lenses made by Lumora Optics.",
  "- Qinglan Technology designs the Tingchao voice chip.",
  "",
  "| Customer | Region |",
  "| --- | --- |",
  "| Ellery Council | Ellery coast |",
  "",
  "```bash",
  "gullwing --survey Carrow",
  "```",
].join("\n");

/** Markdown syntax that must not reach a description: markers, emphasis, code, link targets, pipes. */
const MARKDOWN_SYNTAX = /(^|\s)#{1,6}\s|^\s*[-*+]\s|\*\*|__|`|\]\(|\||https?:|\b_\w/;

function descriptions(extraction: Extraction): string[] {
  return [...extraction.entities, ...extraction.relationships].map((item) => item.description);
}

describe("OfflineNlpExtractor on markdown", () => {
  it("describes entities and relationships without markdown syntax", async () => {
    const extraction = await extract(TIDEWELL_MD, "Tidewell Robotics");
    expect(extraction.entities.length).toBeGreaterThan(5);
    for (const description of descriptions(extraction)) expect(description).not.toMatch(MARKDOWN_SYNTAX);
    expect(related(extraction, "Gullwing", "Lumora Optics")).toBe(true);
    expect(typeOf(extraction, "Carrow Bay")).toBe("location");
  });

  it("never runs a heading into the sentence after it", async () => {
    const extraction = await extract(TIDEWELL_MD, "Tidewell Robotics");
    const vale = extraction.entities.find((e) => e.name === "Idris Vale");
    expect(vale?.description).toBe("It was founded in 2016 in Carrow Bay by Idris Vale.");
    const title = extraction.entities.find((e) => e.name === "Tidewell Robotics");
    expect(title?.description.startsWith("Tidewell Robotics builds survey drones for coastal work.")).toBe(
      true,
    );
    for (const description of descriptions(extraction)) expect(description).not.toContain("Founding");
  });

  it("keeps a name opening with an adjective whole, and its heading out of its description", async () => {
    const text = [
      "# Verdant Markets",
      "",
      "Verdant Markets is a grocery chain based in Leeds. Verdant Markets opened its first store in 2019.",
    ].join("\n");
    const extraction = await extract(text, "verdant.md");
    const names = extraction.entities.map((e) => e.name);
    expect(names).toContain("Verdant Markets");
    expect(names).not.toContain("Markets");
    const verdant = extraction.entities.find((e) => e.name === "Verdant Markets");
    expect(verdant?.description).toBe(
      "Verdant Markets is a grocery chain based in Leeds. Verdant Markets opened its first store in 2019.",
    );
  });

  it("leaves the chunk as written, so citations keep pointing at the source", async () => {
    const record = chunk(TIDEWELL_MD);
    const before = structuredClone(record);
    await new OfflineNlpExtractor().extract(record, { title: "Tidewell Robotics" });
    expect(record).toEqual(before);
  });

  it("reads plain English and Chinese exactly as it does without markdown reading", async () => {
    const corpus = new URL("../../samples/corpus/", import.meta.url);
    const samples = [
      { title: "Marie Curie", text: CURIE },
      { title: "阿里巴巴", text: ALIBABA },
      { title: "", text: "Inception was directed by Christopher Nolan. 诺兰出生于伦敦。" },
      ...["mara-quell.txt", "chengzhou.txt", "vessen.txt"].map((file) => ({
        title: file,
        text: readFileSync(new URL(file, corpus), "utf8"),
      })),
      ...readFileSync(new URL("field-notes.jsonl", corpus), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { title: string; text: string }),
    ];
    const reading = new OfflineNlpExtractor();
    const literal = new OfflineNlpExtractor({ readMarkdown: false });
    for (const { title, text } of samples) {
      expect(reading.extractText(text, title), title).toEqual(literal.extractText(text, title));
    }
    // The comparison has teeth: markdown is read differently.
    expect(reading.extractText(TIDEWELL_MD, "Tidewell Robotics")).not.toEqual(
      literal.extractText(TIDEWELL_MD, "Tidewell Robotics"),
    );
  });
});

describe("titleEntityName", () => {
  it("drops qualifiers and leading articles, and refuses file names", () => {
    expect(titleEntityName("Lilu (mythology)")).toBe("Lilu");
    expect(titleEntityName("The Hukilau Song")).toBe("Hukilau Song");
    expect(titleEntityName("West Bengal Legislative Assembly election, 1967")).toBe(
      "West Bengal Legislative Assembly election, 1967",
    );
    expect(titleEntityName("report.pdf")).toBeNull();
    expect(titleEntityName("docs/intro")).toBeNull();
    expect(titleEntityName("  ")).toBeNull();
    expect(titleEntityName("Node.js")).toBe("Node.js");
    expect(titleEntityName("Christian Moerlein Brewing Co.")).toBe("Christian Moerlein Brewing Co");
  });
});
