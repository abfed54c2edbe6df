import { describe, expect, it } from "vitest";
import { descriptionParts } from "../../web/src/components/description-parts.js";

describe("web app: merged descriptions", () => {
  it("shows each source's text as a part, without the raw <SEP> separator", () => {
    expect(descriptionParts("Founded in Lisbon.<SEP>Builds warehouse robots. <SEP>  ")).toEqual([
      "Founded in Lisbon.",
      "Builds warehouse robots.",
    ]);
    expect(descriptionParts("One summary, no separator.")).toEqual(["One summary, no separator."]);
    expect(descriptionParts("")).toEqual([]);
  });
});
