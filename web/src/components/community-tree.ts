/** The community hierarchy as a tree, and the part of it a title filter keeps. */

export interface TreeItem {
  id: string;
  parent?: string | null;
  title: string;
  size: number;
}

export interface TreeNode<Item extends TreeItem = TreeItem> {
  item: Item;
  children: TreeNode<Item>[];
}

/** Communities under their parents, the largest first at every level. */
export function buildTree<Item extends TreeItem>(items: Item[]): TreeNode<Item>[] {
  const nodes = new Map(items.map((item) => [item.id, { item, children: [] as TreeNode<Item>[] }]));
  const roots: TreeNode<Item>[] = [];
  for (const node of nodes.values()) {
    const parent = node.item.parent ? nodes.get(node.item.parent) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const bySize = (a: TreeNode<Item>, b: TreeNode<Item>) => b.item.size - a.item.size;
  for (const node of nodes.values()) node.children.sort(bySize);
  return roots.sort(bySize);
}

/**
 * The communities whose title (or id) holds `text`, case-insensitively, under their ancestors, so a
 * match keeps its place in the hierarchy; `matches` counts the matching ones. Empty text keeps
 * all (and counts none).
 */
export function filterTree<Item extends TreeItem>(
  nodes: TreeNode<Item>[],
  text: string,
): { nodes: TreeNode<Item>[]; matches?: number } {
  const needle = text.trim().toLocaleLowerCase();
  if (!needle) return { nodes };
  let matches = 0;
  const keep = (list: TreeNode<Item>[]): TreeNode<Item>[] =>
    list.flatMap((node) => {
      const children = keep(node.children);
      const hit = `${node.item.title}\n${node.item.id}`.toLocaleLowerCase().includes(needle);
      if (hit) matches += 1;
      return hit || children.length > 0 ? [{ item: node.item, children }] : [];
    });
  const kept = keep(nodes);
  return { nodes: kept, matches };
}
