/** Colour per category (community or type), by frequency so the biggest groups get the clearest colours. */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#86bcb6",
  "#d37295",
  "#a0cbe8",
];
export const OTHER_COLOUR = "#bab0ac";
/** Nodes drawn faint (a community's neighbours beside its members). */
export const FADED_COLOUR = "#dddddd";
/** Categories with a palette colour of their own; the rest share OTHER_COLOUR. */
export const PALETTE_SIZE = PALETTE.length;

export interface LegendEntry {
  key: string;
  colour: string;
  count: number;
}

/** The legend for these category keys: the most frequent keys get palette colours, the rest share grey. */
export function legendFor(keys: string[]): LegendEntry[] {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, count], i) => ({ key, count, colour: PALETTE[i] ?? OTHER_COLOUR }));
}

/** What a canvas's legend says: the colours of the nodes drawn in colour, and how many are drawn faint. */
export interface CanvasLegend {
  entries: LegendEntry[];
  faded: number;
}

/**
 * The legend of nodes some of which are drawn faint: categories and counts of the others only (a
 * faint node shows no category colour), the faint ones counted apart, so legend and drawing agree.
 */
export function canvasLegend(nodes: ReadonlyArray<{ category: string; faded: boolean }>): CanvasLegend {
  const coloured = nodes.filter((node) => !node.faded);
  return { entries: legendFor(coloured.map((node) => node.category)), faded: nodes.length - coloured.length };
}

/** Node size grows with the square root of degree, so hubs stand out without hiding the rest. */
export function sizeForDegree(degree: number): number {
  return Math.min(22, 4 + 2.2 * Math.sqrt(Math.max(0, degree)));
}

/**
 * What the legend calls each community when nodes are coloured by community: its report's title,
 * "community <id>" for one without a report (its title is its id), "no community" for none.
 */
export function communityLabels(communities: { id: string; title: string }[]): Map<string, string> {
  const labels = new Map<string, string>([["none", "no community"]]);
  for (const { id, title } of communities) labels.set(id, title && title !== id ? title : `community ${id}`);
  return labels;
}
