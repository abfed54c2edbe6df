import { describe, expect, it } from "vitest";
import { splitSentences } from "../../src/nlp/sentence-split.js";

describe("sentence splitting at abbreviations", () => {
  it("does not end a sentence at a known abbreviation", () => {
    expect(splitSentences("Dr. Smith met Mr. Jones. They talked.")).toEqual([
      "Dr. Smith met Mr. Jones.",
      "They talked.",
    ]);
    expect(splitSentences("Prof. Lund teaches. So do others.")).toEqual([
      "Prof. Lund teaches.",
      "So do others.",
    ]);
    expect(splitSentences("Vessen Corp. moved to the U.S. in 1990. It grew.")).toEqual([
      "Vessen Corp. moved to the U.S. in 1990.",
      "It grew.",
    ]);
  });

  it("does not end a sentence at a single capital initial", () => {
    expect(splitSentences("J. R. R. Tolkien wrote books. He taught.")).toEqual([
      "J. R. R. Tolkien wrote books.",
      "He taught.",
    ]);
  });

  it("ends a sentence at a short name that is no abbreviation", () => {
    expect(splitSentences("The firm was founded by Jon Vik. It grew.")).toEqual([
      "The firm was founded by Jon Vik.",
      "It grew.",
    ]);
    expect(splitSentences("Her sister is Ann. She lives in Oslo.")).toEqual([
      "Her sister is Ann.",
      "She lives in Oslo.",
    ]);
  });

  it("ends a sentence at etc. before a capitalised word", () => {
    expect(splitSentences("Apples, pears etc. They grow.")).toEqual(["Apples, pears etc.", "They grow."]);
    expect(splitSentences("Apples, pears etc. grow here.")).toEqual(["Apples, pears etc. grow here."]);
  });

  it("does not end a sentence at the title Gen. or at Mt. before a name", () => {
    expect(splitSentences("Gen. Lee crossed Mt. Hood. He rested.")).toEqual([
      "Gen. Lee crossed Mt. Hood.",
      "He rested.",
    ]);
  });
});
