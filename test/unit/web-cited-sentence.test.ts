import { describe, expect, it } from "vitest";
import { answerPieces } from "../../web/src/components/citations.js";
import { claimOf, supportingSentence } from "../../web/src/components/cited-sentence.js";
import { highlightPieces } from "../../web/src/components/highlight.js";

/** The claim of the citation numbered `n` (its first occurrence) in an answer. */
function claimOfCitation(answer: string, n: number): string {
  const pieces = answerPieces(answer);
  return claimOf(
    pieces,
    pieces.findIndex((piece) => "cite" in piece && piece.cite === n),
  );
}

describe("web app: the sentence a citation points at", () => {
  it("takes the answer's sentence a citation ends, back to the previous sentence", () => {
    const answer = "Vale founded Tidewell [1]. He was born in Saltmere in 1984 [2, 3]. It grew. [4]";
    expect(claimOfCitation(answer, 1)).toBe("Vale founded Tidewell");
    expect(claimOfCitation(answer, 2)).toBe("He was born in Saltmere in 1984");
    // The second number of a bracket cites the same sentence.
    expect(claimOfCitation(answer, 3)).toBe("He was born in Saltmere in 1984");
    // A citation after the full stop cites the sentence before it.
    expect(claimOfCitation(answer, 4)).toBe("It grew.");
    expect(claimOfCitation("It cost 3.5 million euros [1].", 1)).toBe("It cost 3.5 million euros");
    expect(claimOfCitation("听潮芯片在澄州生产。创始人林晓舟出生于白湾镇[2]。", 2)).toBe(
      "创始人林晓舟出生于白湾镇",
    );
  });

  it("marks the passage sentence that shares most of the claim's words", () => {
    const passage =
      "Tidewell Robotics was founded in 2011. Its founder, Idris Vale, was born in Saltmere in 1984. " +
      "The company makes the Gullwing drone.";
    const range = supportingSentence(passage, "Idris Vale was born in Saltmere");
    expect(range && passage.slice(range.start, range.end)).toBe(
      "Its founder, Idris Vale, was born in Saltmere in 1984.",
    );
    expect(supportingSentence(passage, "The Gullwing drone")).toEqual({
      start: passage.indexOf("The company"),
      end: passage.length,
    });
    // Nothing in common (or a single shared word): no sentence is marked.
    expect(supportingSentence(passage, "Rainfall in the northern hills")).toBeUndefined();
    expect(supportingSentence(passage, "")).toBeUndefined();
  });

  it("does not take shared stopwords for support", () => {
    // Only "is", "in", "the" and "of" in common: the claim is about the north, the passage the south.
    expect(
      supportingSentence("The city is in the south of the region.", "It is in the north of the country"),
    ).toBeUndefined();
    // The same in Chinese: 城市 alone is shared once 的 and 一个 are not counted.
    expect(supportingSentence("这座城市是在南方的一个港口。", "它是在北方的一个城市")).toBeUndefined();
    // Words that carry the meaning still find their sentence among stopwords.
    const passage = "The city is in the south of the region. It is in the north of the country, by the sea.";
    const range = supportingSentence(passage, "It is in the north of the country");
    expect(range && passage.slice(range.start, range.end)).toBe(
      "It is in the north of the country, by the sea.",
    );
  });

  it("finds Chinese sentences by their words", () => {
    const passage = "青岚科技的听潮芯片在澄州生产。创始人林晓舟出生于白湾镇。公司成立于二零一一年。";
    const range = supportingSentence(passage, "创始人林晓舟出生于白湾镇");
    expect(range && passage.slice(range.start, range.end)).toBe("创始人林晓舟出生于白湾镇。");
  });

  it("marks the supporting sentence in the passage dialog, or the terms when no sentence supports the claim", () => {
    const passage = "Vale was born in Saltmere. Saltmere is a port.";
    expect(highlightPieces(passage, { claim: "Vale was born in Saltmere", terms: ["port"] })).toEqual([
      { text: "Vale was born in Saltmere.", marked: true },
      { text: " Saltmere is a port.", marked: false },
    ]);
    expect(highlightPieces(passage, { claim: "Something else entirely", terms: ["port"] })).toEqual([
      { text: "Vale was born in Saltmere. Saltmere is a ", marked: false },
      { text: "port", marked: true },
      { text: ".", marked: false },
    ]);
  });
});
