import { describe, expect, it } from "vitest";
import { buildTree, filterTree, type TreeNode } from "../../web/src/components/community-tree.js";

const items = [
  { id: "a", parent: null, title: "Rivers and lakes", size: 9 },
  { id: "a1", parent: "a", title: "Yangtze and 长江", size: 4 },
  { id: "a2", parent: "a", title: "Danube", size: 5 },
  { id: "a2x", parent: "a2", title: "Vienna", size: 2 },
  { id: "b", parent: null, title: "Painters", size: 20 },
  { id: "b1", parent: "b", title: "Monet and the river Seine", size: 3 },
];

/** The tree as "title > child title" paths, depth first. */
function paths(nodes: TreeNode[], prefix = ""): string[] {
  return nodes.flatMap((node) => {
    const path = prefix ? `${prefix} > ${node.item.title}` : node.item.title;
    return [path, ...paths(node.children, path)];
  });
}

describe("the community tree and its title filter", () => {
  const tree = buildTree(items);

  it("puts children under parents, the largest first", () => {
    expect(paths(tree)).toEqual([
      "Painters",
      "Painters > Monet and the river Seine",
      "Rivers and lakes",
      "Rivers and lakes > Danube",
      "Rivers and lakes > Danube > Vienna",
      "Rivers and lakes > Yangtze and 长江",
    ]);
  });

  it("keeps the matching communities under their ancestors, whatever the case, and counts the matches", () => {
    const { nodes, matches } = filterTree(tree, " RIVER ");
    expect(paths(nodes)).toEqual(["Painters", "Painters > Monet and the river Seine", "Rivers and lakes"]);
    expect(matches).toBe(2);
  });

  it("finds Chinese titles and a community's id", () => {
    expect(paths(filterTree(tree, "长江").nodes)).toEqual([
      "Rivers and lakes",
      "Rivers and lakes > Yangtze and 长江",
    ]);
    expect(filterTree(tree, "a2x").matches).toBe(1);
  });

  it("keeps everything and counts nothing without text, and nothing when no title matches", () => {
    expect(filterTree(tree, "  ")).toEqual({ nodes: tree });
    expect(filterTree(tree, "sculpture")).toEqual({ nodes: [], matches: 0 });
  });
});
