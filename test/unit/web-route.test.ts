import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { linkWorkspace, parseRoute, routeHash, withWorkspace } from "../../web/src/route-hash.js";
import { chooseWorkspace } from "../../web/src/workspace-choice.js";

describe("web app: addresses name their workspace", () => {
  afterEach(() => linkWorkspace(""));

  it("puts the workspace shown in every route, before the view's own params", () => {
    linkWorkspace("wsB");
    expect(routeHash("communities", { community: "c0-1a2b3c4d5e6f" })).toBe(
      "#/communities?workspace=wsB&community=c0-1a2b3c4d5e6f",
    );
    expect(routeHash("graph")).toBe("#/graph?workspace=wsB");
    // A route made for another workspace names that one.
    expect(routeHash("documents", {}, "wsA")).toBe("#/documents?workspace=wsA");
    // A params' own workspace does not name it twice.
    expect(routeHash("graph", { workspace: "wsA", entity: "Ada" })).toBe("#/graph?workspace=wsB&entity=Ada");
    // An entity's link (as in an answer's context) names the workspace and keeps the name whole.
    const hash = routeHash("graph", { entity: "Ada Lovelace & Co" });
    expect(hash).toBe("#/graph?workspace=wsB&entity=Ada+Lovelace+%26+Co");
    expect(parseRoute(hash).params.get("entity")).toBe("Ada Lovelace & Co");
  });

  it("is how every link of the app is made: none writes a `#/` address by hand", () => {
    const root = join(__dirname, "../../web/src");
    const sources = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
      (file) => /\.tsx?$/.test(file) && !file.endsWith("route-hash.ts"),
    );
    // Comments may show an address; code may not spell one out.
    const code = (file: string) =>
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .filter((line) => !/^\s*(\/\/|\/\*|\*|\{\/\*)/.test(line))
        .join("\n");
    const handMade = sources.filter((file) => /[`"']#\/[a-z]/.test(code(file)));
    expect(handMade).toEqual([]);
  });

  it("reads the workspace back from an address, and sets it in one that lacks it", () => {
    const route = parseRoute("#/communities?workspace=wsB&community=c0-1");
    expect(route.view).toBe("communities");
    expect(route.params.get("workspace")).toBe("wsB");
    expect(route.params.get("community")).toBe("c0-1");
    expect(withWorkspace("#/graph?entity=Ada%20Lovelace", "wsA")).toBe(
      "#/graph?workspace=wsA&entity=Ada+Lovelace",
    );
    expect(withWorkspace("", "wsA")).toBe("#/documents?workspace=wsA");
  });
});

describe("web app: the workspace shown", () => {
  const available = ["wsA", "wsB"];

  it("is the one the address names, over the one saved in this browser", () => {
    expect(chooseWorkspace(available, "wsB", "wsA")).toEqual({ id: "wsB" });
  });

  it("is the saved one, else the first, when the address names none", () => {
    expect(chooseWorkspace(available, undefined, "wsB")).toEqual({ id: "wsB" });
    expect(chooseWorkspace(available, undefined, "gone")).toEqual({ id: "wsA" });
    expect(chooseWorkspace(available, undefined, undefined)).toEqual({ id: "wsA" });
  });

  it("reports a workspace the address names that is not offered, and shows none in its place", () => {
    // Showing the saved one would look the address's entity or community up in another workspace.
    expect(chooseWorkspace(available, "wsZ", "wsB")).toEqual({ id: undefined, unavailable: "wsZ" });
    expect(chooseWorkspace([], "wsZ", undefined)).toEqual({ id: undefined, unavailable: "wsZ" });
  });
});
