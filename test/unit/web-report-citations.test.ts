import { describe, expect, it } from "vitest";
import {
  communityCitations,
  type ReportCitation,
  refLabel,
  reportPieces,
} from "../../web/src/components/report-citations.js";

const citations: Record<string, ReportCitation> = {
  "E:1": { kind: "entity", name: "Ada Lovelace" },
  "E:4": { kind: "entity", name: "Charles Babbage" },
  "R:2": { kind: "relationship", source: "Ada Lovelace", target: "Analytical Engine" },
  "C:c0-ab12": { kind: "community", id: "c0-ab12", title: "The engine makers" },
};

const ada = citations["E:1"];
const babbage = citations["E:4"];
const engine = citations["R:2"];
const makers = citations["C:c0-ab12"];

describe("web app: community report citations", () => {
  it("makes each bracket of ids one group of references, a bare id sharing the kind before it", () => {
    expect(reportPieces("Ada wrote notes [E:1, 4; R:2]. See [C:c0-ab12].", citations)).toEqual([
      { text: "Ada wrote notes " },
      { refs: [ada, babbage, engine] },
      { text: ". See " },
      { refs: [makers] },
      { text: "." },
    ]);
  });

  it("keeps an id nothing names as its bare id, without the brackets", () => {
    const pieces = reportPieces("Unknown [E:99, R:2].", citations);
    expect(pieces).toEqual([
      { text: "Unknown " },
      { refs: [{ kind: "unknown", id: "E:99" }, engine] },
      { text: "." },
    ]);
    expect(pieces.flatMap((p) => ("refs" in p ? p.refs.map(refLabel) : []))).toEqual([
      "E:99",
      "Ada Lovelace — Analytical Engine",
    ]);
  });

  it("shows a references-list line as its reference alone, the label it would repeat left out", () => {
    const text =
      "## References\n\n- [E:1] Ada Lovelace\n- [R:2] Ada Lovelace — Analytical Engine\n- [E:7] Gone\n";
    expect(reportPieces(text, citations)).toEqual([
      { text: "## References\n\n" },
      { text: "- " },
      { ref: ada },
      { text: "\n" },
      { text: "- " },
      { ref: engine },
      { text: "\n" },
      { text: "- " },
      { ref: { kind: "unknown", id: "E:7" } },
      { text: " Gone" },
      { text: "\n" },
    ]);
  });

  it("leaves brackets that are not citations, and text without any, as they are", () => {
    expect(reportPieces("A list [x], a [3] and [E:] stay.", citations)).toEqual([
      { text: "A list [x], a [3] and [E:] stay." },
    ]);
    expect(reportPieces("", citations)).toEqual([]);
  });

  it("resolves the [C:id] of a query context's reports to their titles", () => {
    const known = communityCitations([{ id: "c1-9f", title: "Bees" }]);
    expect(reportPieces("Bees matter [C:c1-9f].", known)).toEqual([
      { text: "Bees matter " },
      { refs: [{ kind: "community", id: "c1-9f", title: "Bees" }] },
      { text: "." },
    ]);
  });
});
