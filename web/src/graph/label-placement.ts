/** Where sigma draws a node's label, relative to the node. */
export type LabelSide = "right" | "left" | "below" | "above";

/** A label's side, or "hidden" for the label of a node outside the view that no side shows whole. */
export type LabelPlacement = LabelSide | "hidden";

/** A box in viewport pixels (y points down). */
export interface Box {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** A node as drawn and its label's size, in viewport pixels. */
export interface LabelGeometry {
  /** The node's centre. */
  x: number;
  y: number;
  radius: number;
  /** Between the node's rim and its label. */
  margin: number;
  width: number;
  height: number;
}

/** Right first (where a reader looks), then left, then under or over the node. */
const SIDES_BY_PREFERENCE: readonly LabelSide[] = ["right", "left", "below", "above"];

/** The label's box on `side`, as sigma places it: beside the node centred on it, or centred under or over it. */
export function labelBox(geometry: LabelGeometry, side: LabelSide): Box {
  const { x, y, radius, margin, width, height } = geometry;
  const start = radius + margin;
  switch (side) {
    case "right":
      return { minX: x + start, maxX: x + start + width, minY: y - height / 2, maxY: y + height / 2 };
    case "left":
      return { minX: x - start - width, maxX: x - start, minY: y - height / 2, maxY: y + height / 2 };
    case "below":
      return { minX: x - width / 2, maxX: x + width / 2, minY: y + start, maxY: y + start + height };
    case "above":
      return { minX: x - width / 2, maxX: x + width / 2, minY: y - start - height, maxY: y - start };
  }
}

/** How far `box` runs past the viewport's edges, summed over the four (0 when it lies inside). */
export function overflow(box: Box, viewport: { width: number; height: number }): number {
  return (
    Math.max(0, -box.minX) +
    Math.max(0, box.maxX - viewport.width) +
    Math.max(0, -box.minY) +
    Math.max(0, box.maxY - viewport.height)
  );
}

/**
 * The side a label is read whole on: the first by preference whose box lies inside the viewport, else
 * the one cut the least (a label wider than the view, a node half out of it).
 */
export function labelSide(geometry: LabelGeometry, viewport: { width: number; height: number }): LabelSide {
  let best: LabelSide = "right";
  let bestOverflow = Number.POSITIVE_INFINITY;
  for (const side of SIDES_BY_PREFERENCE) {
    const cut = overflow(labelBox(geometry, side), viewport);
    if (cut === 0) return side;
    if (cut < bestOverflow) {
      best = side;
      bestOverflow = cut;
    }
  }
  return best;
}

/**
 * Where a label goes: its side (see labelSide), or nowhere for a node whose centre lies outside the
 * view and whose label would show only in part (a cut word at the edge, its node not even in sight).
 */
export function labelPlacement(
  geometry: LabelGeometry,
  viewport: { width: number; height: number },
): LabelPlacement {
  const side = labelSide(geometry, viewport);
  const nodeInView =
    geometry.x >= 0 && geometry.x <= viewport.width && geometry.y >= 0 && geometry.y <= viewport.height;
  return nodeInView || overflow(labelBox(geometry, side), viewport) === 0 ? side : "hidden";
}
