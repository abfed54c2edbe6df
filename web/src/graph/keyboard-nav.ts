/**
 * Moving a keyboard focus between the nodes sigma draws on its canvas, which has no elements to
 * tab through: by direction among the nodes on screen, or by how connected they are.
 */

/** A node where it is drawn, in the canvas's pixels (y grows downwards). */
export interface ScreenNode {
  id: string;
  x: number;
  y: number;
  degree: number;
}

export type Direction = "left" | "right" | "up" | "down";

const UNIT: Record<Direction, { x: number; y: number }> = {
  left: { x: -1, y: 0 },
  right: { x: 1, y: 0 },
  up: { x: 0, y: -1 },
  down: { x: 0, y: 1 },
};

/** The arrow keys' directions. */
export const ARROW_DIRECTIONS: Readonly<Record<string, Direction>> = {
  ArrowLeft: "left",
  ArrowRight: "right",
  ArrowUp: "up",
  ArrowDown: "down",
};

/**
 * The node nearest `from` in `direction`: some way that way, a node in line counting for more than
 * one as near but off to the side (its sideways distance weighs double). None when nothing lies
 * that way.
 */
export function nearestInDirection(
  from: ScreenNode,
  nodes: readonly ScreenNode[],
  direction: Direction,
): string | undefined {
  const unit = UNIT[direction];
  let best: { id: string; score: number } | undefined;
  for (const node of nodes) {
    if (node.id === from.id) continue;
    const dx = node.x - from.x;
    const dy = node.y - from.y;
    const along = dx * unit.x + dy * unit.y;
    if (along <= 0) continue;
    const across = Math.abs(dx * unit.y - dy * unit.x);
    const score = along + 2 * across;
    if (!best || score < best.score) best = { id: node.id, score };
  }
  return best?.id;
}

/** The nodes most connected first, ties by id, so the order does not change between calls. */
export function byDegree(nodes: readonly ScreenNode[]): ScreenNode[] {
  return [...nodes].sort((a, b) => b.degree - a.degree || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The node `step` places after `from` in degree order, going round at either end. */
export function stepByDegree(
  from: string | undefined,
  nodes: readonly ScreenNode[],
  step: number,
): string | undefined {
  const ordered = byDegree(nodes);
  if (ordered.length === 0) return undefined;
  const at = ordered.findIndex((node) => node.id === from);
  if (at < 0) return ordered[0]?.id;
  return ordered[(((at + step) % ordered.length) + ordered.length) % ordered.length]?.id;
}
