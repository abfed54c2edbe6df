import { describe, expect, it } from "vitest";
import { descriptionParts } from "../../web/src/components/description-parts.js";
import { mergeByName } from "../../web/src/merge-by-name.js";

describe("web app: merged descriptions", () => {
  it("shows each source's text, a line of the API's readable description, as a part", () => {
    expect(descriptionParts("Founded in Lisbon.\nBuilds warehouse robots. \n  ")).toEqual([
      "Founded in Lisbon.",
      "Builds warehouse robots.",
    ]);
    expect(descriptionParts("One summary, no separator.")).toEqual(["One summary, no separator."]);
    expect(descriptionParts("")).toEqual([]);
  });
});

describe("web app: entity search", () => {
  it("lists names starting with the text first, then full-text matches not listed yet", () => {
    const prefix = [{ name: "Gullwing" }, { name: "Gullwing Drone" }];
    const text = [{ name: "Carrow Bay" }, { name: "Gullwing" }, { name: "Lumora Optics" }];
    expect(mergeByName(prefix, text).map((row) => row.name)).toEqual([
      "Gullwing",
      "Gullwing Drone",
      "Carrow Bay",
      "Lumora Optics",
    ]);
  });
});
