import Graph from "graphology";
import { inferSettings } from "graphology-layout-forceatlas2";
import FA2Layout from "graphology-layout-forceatlas2/worker";
import type { Attributes } from "graphology-types";
import { useEffect, useId, useMemo, useRef, useState } from "preact/hooks";
import Sigma, { DEFAULT_STYLES } from "sigma";
import { pathLine } from "sigma/rendering";
import { canvasLegend, FADED_COLOUR, OTHER_COLOUR, PALETTE_SIZE, sizeForDegree } from "./colors";
import { GraphLegend } from "./GraphLegend";
import { ARROW_DIRECTIONS, nearestInDirection, type ScreenNode, stepByDegree } from "./keyboard-nav";
import { type LabelGeometry, type LabelPlacement, labelPlacement } from "./label-placement";
import { graphTestHookWanted } from "./test-hook-flag";
import { type ColourBy, categoryOf, type GraphEdgeData, type GraphNodeData } from "./types";
import { ViewGraph } from "./view-graph";

export interface GraphCanvasProps {
  nodes: GraphNodeData[];
  edges: GraphEdgeData[];
  colourBy: ColourBy;
  selected?: string;
  /** Nodes drawn prominently (community members); the rest fade. */
  emphasised?: ReadonlySet<string>;
  /** The legend's words for the faded nodes. */
  fadedLabel?: string;
  /** Legend words for category keys (community ids); a key without one is shown as is. */
  categoryLabels?: ReadonlyMap<string, string>;
  onNodeClick?(id: string): void;
  /** Enter on the node the keyboard is on; a click's action when not given. */
  onNodeOpen?(id: string): void;
  /** Space or + on the node the keyboard is on. */
  onNodeExpand?(id: string): void;
  /** How long ForceAtlas2 runs after a change, in ms, before the layout is left to settle. */
  layoutMs?: number;
}

type NodeAttributes = {
  x: number;
  y: number;
  size: number;
  color: string;
  /** The category colour, kept while `color` is faded. */
  baseColor?: string;
  label: string;
  category: string;
};

/** Per node, the side its label is drawn on, or "hidden" (see placeLabels). */
type LabelState = { labelPlacement: LabelPlacement };

/** Sigma's label font, size and gap from the node (its defaults), which the placement measures by. */
const LABEL_FONT = "sans-serif";
const LABEL_SIZE = 12;
const LABEL_MARGIN = 5;

/**
 * From this many nodes on, drawing trades finish for frame rate: labels hide while the view moves
 * (edges always do), fewer labels are drawn, and edges lose their anti-aliasing, which a browser
 * without a GPU computes on the CPU for every edge pixel of every frame.
 */
const LARGE_GRAPH_NODES = 500;

/** While ForceAtlas2 moves a large graph, the nodes are redrawn at most this often (ms). */
const LARGE_LAYOUT_FRAME_GAP_MS = 150;

/** A sigma.js view of the given nodes and edges; new nodes appear next to a neighbour and ForceAtlas2 settles them. */
export default function GraphCanvas(props: GraphCanvasProps) {
  const container = useRef<HTMLDivElement>(null);
  const graph = useMemo(() => new Graph<NodeAttributes>({ type: "undirected", multi: false }), []);
  /** What sigma draws: the graph above, without its edges while a large layout runs. */
  const drawn = useMemo(
    () =>
      new ViewGraph(graph, new Graph<NodeAttributes>({ type: "undirected", multi: false }), (callback) =>
        requestAnimationFrame(callback),
      ),
    [graph],
  );
  const renderer = useRef<Sigma<NodeAttributes, Attributes, Attributes, LabelState> | undefined>(undefined);
  const labelWidths = useMemo(() => new LabelWidths(), []);
  /** Nodes whose labels placeLabels hid: outside the view, they would show only in part. */
  const hiddenLabels = useMemo(() => new Set<string>(), []);
  /** Whether placeLabels moved a label after the last frame (drawn in the next one). */
  const labelsMoved = useRef(false);
  /** Removes the browser tests' hook, when one was asked for (see graphTestHookWanted). */
  const detachTestHook = useRef<() => void>(() => {});
  const keysHint = useId();
  const layout = useRef<FA2Layout | undefined>(undefined);
  const layoutTimer = useRef<number | undefined>(undefined);
  const resizeWatcher = useRef<ResizeObserver | undefined>(undefined);
  const [failure, setFailure] = useState<string>();
  const [layoutRunning, setLayoutRunning] = useState(false);
  /**
   * The nodes last put in the drawn graph (and laid out, when any were new). Until these are the
   * props' nodes, the layout is not settled: it has not even started for them.
   */
  const [syncedNodes, setSyncedNodes] = useState<GraphNodeData[]>();
  const clickHandler = useRef(props.onNodeClick);
  clickHandler.current = props.onNodeClick;
  /** The node the keyboard is on, and whether the drawing has the keyboard's focus. */
  const [keyboardNode, setKeyboardNode] = useState<string>();
  const [hasFocus, setHasFocus] = useState(false);

  const { entries: legend, faded: fadedCount } = useMemo(
    () =>
      canvasLegend(
        props.nodes.map((node) => ({
          category: categoryOf(node, props.colourBy),
          faded: fades(props.emphasised, node.id),
        })),
      ),
    [props.nodes, props.colourBy, props.emphasised],
  );
  /** Categories past the palette share its last colour and one legend line. */
  const others = legend.slice(PALETTE_SIZE);

  useEffect(() => {
    if (!container.current) return;
    try {
      const sigma = new Sigma<NodeAttributes, Attributes, Attributes, LabelState>(
        drawn.view,
        container.current,
        {
          // Straight edges only: sigma's default also declares self-loops, whose 32-segment path then
          // shapes every edge's geometry (the graph has no self-loops: syncGraph skips them).
          primitives: { edges: { paths: [pathLine()] } },
          // A label that would run past the canvas's edge is drawn on the node's other side (see placeLabels).
          customNodeState: { labelPlacement: "right" },
          styles: {
            nodes: [
              DEFAULT_STYLES.nodes,
              {
                labelFont: LABEL_FONT,
                labelSize: LABEL_SIZE,
                labelPosition: (_node, { labelPlacement }) =>
                  labelPlacement === "hidden" ? "right" : labelPlacement,
                // Sigma's own rule (shown under the pointer, else where labels do not crowd), unless cut.
                labelVisibility: (_node, { labelPlacement, isHovered }) =>
                  labelPlacement === "hidden" ? "hidden" : isHovered ? "visible" : "auto",
              },
            ],
          },
          // Sizes in screen pixels: sigma 4 defaults to graph units, which makes a few nodes fill the view.
          settings: {
            itemSizesReference: "screen",
            labelDensity: 0.5,
            hideEdgesOnMove: true,
            renderEdgeLabels: false,
            // Fixed when the shaders are built: decided by the first graph shown.
            antialiasEdges: props.nodes.length < LARGE_GRAPH_NODES,
            antialiasNodes: props.nodes.length < LARGE_GRAPH_NODES,
            // The hidden picking layer (what is under the pointer) is drawn every frame: at a quarter
            // of the resolution (sigma's default is half) it costs a quarter of the pixels...
            pickingDownSizingRatio: props.nodes.length < LARGE_GRAPH_NODES ? 2 : 4,
            // ...and small nodes are padded there, so they stay as easy to click as at full size.
            nodePickingPadding: props.nodes.length < LARGE_GRAPH_NODES ? 0 : 2,
            // The panel can be laid out (or hidden) after the canvas mounts: draw once it has a size.
            allowInvalidContainer: true,
          },
        },
      );
      sigma.on("clickNode", ({ node }) => clickHandler.current?.(node));
      // The keyboard's ring follows its node as the layout, a pan or a zoom moves it.
      sigma.on("afterRender", () => {
        placeKeyboardRing();
        labelsMoved.current = placeLabels();
      });
      renderer.current = sigma;
      if (graphTestHookWanted()) void attachTestHook();
      resizeWatcher.current = new ResizeObserver(() => sigma.refresh());
      resizeWatcher.current.observe(container.current);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
    return () => {
      resizeWatcher.current?.disconnect();
      window.clearTimeout(layoutTimer.current);
      layout.current?.kill();
      renderer.current?.kill();
      renderer.current = undefined;
      detachTestHook.current();
      detachTestHook.current = () => {};
      drawn.kill();
    };
  }, [graph]);

  useEffect(() => {
    const colours = new Map(legend.map((entry) => [entry.key, entry.colour]));
    // A large graph about to be laid out leaves its edges undrawn from the start (see runLayout).
    if (props.nodes.length >= LARGE_GRAPH_NODES && props.nodes.some((node) => !graph.hasNode(node.id)))
      drawn.showEdges(false);
    const added = syncGraph(graph, props.nodes, props.edges, (node) => {
      const category = categoryOf(node, props.colourBy);
      const colour = colours.get(category) ?? OTHER_COLOUR;
      return { category, color: colour, baseColor: colour };
    });
    if (renderer.current) tuneForSize(renderer.current, graph.order);
    if (added > 0) runLayout();
    setSyncedNodes(props.nodes);
    renderer.current?.refresh();
  }, [props.nodes, props.edges, props.colourBy, legend]);

  useEffect(() => {
    const { selected, emphasised } = props;
    const degrees = new Map(props.nodes.map((node) => [node.id, node.degree]));
    graph.forEachNode((node, attributes) => {
      const faded = fades(emphasised, node);
      const base = sizeForDegree(degrees.get(node) ?? 0);
      const size = node === selected ? base + 5 : base;
      const color = faded ? FADED_COLOUR : (attributes.baseColor ?? attributes.color);
      // Each change is an event sigma processes: skip the nodes that already look right.
      if (attributes.size !== size || attributes.color !== color)
        graph.mergeNodeAttributes(node, { size, color });
    });
    renderer.current?.refresh();
  }, [props.selected, props.emphasised, props.nodes, props.colourBy]);

  /** The node drawn highlighted for the keyboard. */
  const highlightedNode = useRef<string | undefined>(undefined);
  // The keyboard's node is drawn highlighted (its label boxed, as under the pointer) while the
  // drawing has the focus.
  useEffect(() => {
    const sigma = renderer.current;
    if (!sigma) return;
    const shown =
      hasFocus && keyboardNode !== undefined && drawn.view.hasNode(keyboardNode) ? keyboardNode : undefined;
    const before = highlightedNode.current;
    if (before === shown) return;
    if (before !== undefined && drawn.view.hasNode(before))
      sigma.setNodeState(before, { isHighlighted: false });
    if (shown !== undefined) sigma.setNodeState(shown, { isHighlighted: true });
    highlightedNode.current = shown;
    sigma.refresh();
  }, [keyboardNode, hasFocus, props.nodes]);

  const keyboardRing = useRef<HTMLDivElement>(null);
  /** Rings the keyboard's node: a highlighted node alone looks like any other with its label shown. */
  function placeKeyboardRing() {
    const sigma = renderer.current;
    const ring = keyboardRing.current;
    if (!sigma || !ring) return;
    const node = highlightedNode.current;
    const drawnAt =
      node !== undefined && drawn.view.hasNode(node) ? sigma.getNodeDisplayData(node) : undefined;
    ring.hidden = !drawnAt;
    if (!drawnAt) return;
    const { x, y } = sigma.framedGraphToViewport(drawnAt);
    const radius = sigma.scaleSize(drawnAt.size) + 5;
    ring.style.width = ring.style.height = `${2 * radius}px`;
    ring.style.transform = `translate(${x - radius}px, ${y - radius}px)`;
  }

  /** A node's label as drawn now, in viewport pixels; none for a node not drawn. */
  function labelGeometry(node: string): LabelGeometry | undefined {
    const sigma = renderer.current;
    const drawnAt = sigma && drawn.view.hasNode(node) ? sigma.getNodeDisplayData(node) : undefined;
    if (!sigma || !drawnAt?.label) return undefined;
    const { x, y } = sigma.framedGraphToViewport(drawnAt);
    return {
      x,
      y,
      radius: sigma.scaleSize(drawnAt.size),
      margin: LABEL_MARGIN,
      width: labelWidths.of(drawnAt.label),
      height: LABEL_SIZE,
    };
  }

  /**
   * Moves each label shown to the side where it is read whole: one on the right of a node near the
   * canvas's right edge was cut off. The label of a node outside the view that would show only in
   * part is hidden. Runs after each frame; a label moved is drawn in the next. Says whether one moved.
   */
  function placeLabels(): boolean {
    const sigma = renderer.current;
    if (!sigma) return false;
    const viewport = sigma.getDimensions();
    let moved = false;
    // Hidden labels are not among those shown: they are placed again too, to come back in view.
    for (const node of new Set([...sigma.getNodeDisplayedLabels(), ...hiddenLabels])) {
      const geometry = labelGeometry(node);
      if (!geometry) {
        hiddenLabels.delete(node);
        continue;
      }
      const placement = labelPlacement(geometry, viewport);
      if (placement === "hidden") hiddenLabels.add(node);
      else hiddenLabels.delete(node);
      if (sigma.getNodeState(node).labelPlacement !== placement) {
        sigma.setNodeState(node, { labelPlacement: placement });
        moved = true;
      }
    }
    return moved;
  }

  /** Loads and installs the browser tests' hook (a chunk of its own, which users never load). */
  async function attachTestHook() {
    const { installGraphTestHook } = await import("./graph-test-hook");
    const sigma = renderer.current;
    // The canvas may have gone while the hook loaded.
    if (!sigma) return;
    detachTestHook.current = installGraphTestHook({
      sigma: () => renderer.current,
      drawnNodes: () => drawn.view.nodes(),
      labelGeometry,
      labelsMoved: () => labelsMoved.current,
    });
  }

  /** The nodes drawn within the canvas, where they are drawn. */
  function nodesOnScreen(): ScreenNode[] {
    const sigma = renderer.current;
    if (!sigma) return [];
    const { width, height } = sigma.getDimensions();
    const degrees = new Map(props.nodes.map((node) => [node.id, node.degree]));
    const onScreen: ScreenNode[] = [];
    graph.forEachNode((id) => {
      const drawnAt = sigma.getNodeDisplayData(id);
      if (!drawnAt || drawnAt.visibility === "hidden") return;
      const { x, y } = sigma.framedGraphToViewport(drawnAt);
      if (x >= 0 && y >= 0 && x <= width && y <= height)
        onScreen.push({ id, x, y, degree: degrees.get(id) ?? 0 });
    });
    return onScreen;
  }

  /** Where the keyboard starts: the node it was on, else the selected one, else the most connected. */
  function keyboardStart(onScreen: ScreenNode[]): string | undefined {
    for (const candidate of [keyboardNode, props.selected])
      if (candidate !== undefined && onScreen.some((node) => node.id === candidate)) return candidate;
    return stepByDegree(undefined, onScreen, 1);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const onScreen = nodesOnScreen();
    const current = keyboardStart(onScreen);
    const direction = ARROW_DIRECTIONS[event.key];
    let next: string | undefined;
    if (direction) {
      const from = onScreen.find((node) => node.id === current);
      // The first arrow lands on the start node; the next ones move from it.
      next =
        from && current === keyboardNode
          ? (nearestInDirection(from, onScreen, direction) ?? current)
          : current;
    } else if (event.key === "PageDown" || event.key === "PageUp") {
      next = stepByDegree(current, onScreen, event.key === "PageDown" ? 1 : -1);
    } else if (event.key === "Home") {
      next = stepByDegree(undefined, onScreen, 1);
    } else if (event.key === "Enter" && current) {
      (props.onNodeOpen ?? props.onNodeClick)?.(current);
      next = current;
    } else if ((event.key === " " || event.key === "+") && current) {
      (props.onNodeExpand ?? props.onNodeClick)?.(current);
      next = current;
    } else return;
    event.preventDefault();
    if (next !== undefined) setKeyboardNode(next);
  }

  const keyboardNodeData = props.nodes.find((node) => node.id === keyboardNode);

  function runLayout() {
    layout.current?.kill();
    if (graph.order < 2) return;
    const settings = { ...inferSettings(graph), barnesHutOptimize: graph.order > 300 };
    const fa2 = new FA2Layout(graph, { settings });
    layout.current = fa2;
    fa2.start();
    // Thousands of edges redrawn at every layout step cost most of each frame without a GPU: a
    // large graph's nodes settle first, its edges appear once they have.
    drawn.showEdges(graph.order < LARGE_GRAPH_NODES);
    drawn.positionGapMs = graph.order < LARGE_GRAPH_NODES ? 0 : LARGE_LAYOUT_FRAME_GAP_MS;
    // Labels of moving nodes are placed again every frame and can hardly be read: they wait too.
    renderer.current?.setSetting("renderLabels", graph.order < LARGE_GRAPH_NODES);
    setLayoutRunning(true);
    window.clearTimeout(layoutTimer.current);
    const duration = props.layoutMs ?? Math.min(5000, 1200 + graph.order * 4);
    layoutTimer.current = window.setTimeout(() => {
      fa2.stop();
      drawn.showEdges(true);
      renderer.current?.setSetting("renderLabels", true);
      setLayoutRunning(false);
    }, duration);
  }

  return (
    <div class="graph-canvas">
      {/* No legend at all for an empty graph (an entity not found, a cleared view). */}
      {(legend.length > 0 || fadedCount > 0) && (
        <GraphLegend entryCount={Math.min(legend.length, PALETTE_SIZE + 1) + (fadedCount > 0 ? 1 : 0)}>
          {legend.slice(0, PALETTE_SIZE).map((entry) => {
            const label = props.categoryLabels?.get(entry.key) ?? entry.key;
            return (
              <li key={entry.key} title={label === entry.key ? label : `${label} (${entry.key})`}>
                <span class="swatch" style={{ background: entry.colour }} />
                {label} <span class="muted">({entry.count})</span>
              </li>
            );
          })}
          {others.length > 0 && (
            <li title={others.map((entry) => props.categoryLabels?.get(entry.key) ?? entry.key).join(", ")}>
              <span class="swatch" style={{ background: OTHER_COLOUR }} />
              {others.length} more{" "}
              <span class="muted">({others.reduce((sum, entry) => sum + entry.count, 0)})</span>
            </li>
          )}
          {fadedCount > 0 && (
            <li data-faded="">
              <span class="swatch" style={{ background: FADED_COLOUR }} />
              {props.fadedLabel ?? "others"} <span class="muted">({fadedCount})</span>
            </li>
          )}
        </GraphLegend>
      )}
      {/* The legend sits above the drawing, never over its nodes (a corner node's label was under it). */}
      <div class="graph-stage">
        {failure ? (
          <p class="error">The graph view needs WebGL, which this browser does not offer: {failure}</p>
        ) : (
          <div
            ref={container}
            class="sigma-container"
            data-testid="graph-canvas"
            data-layout={layoutRunning || syncedNodes !== props.nodes ? "running" : "settled"}
            data-keyboard-node={hasFocus ? keyboardNode : undefined}
            // The canvas has no elements to tab to: the drawing takes the focus, and keys move
            // between its nodes (see onKeyDown), each announced below.
            tabIndex={props.nodes.length > 0 ? 0 : -1}
            role="application"
            aria-roledescription="graph"
            aria-label={`Graph of ${props.nodes.length} entities`}
            aria-describedby={keysHint}
            onKeyDown={onKeyDown}
            onFocus={() => {
              setHasFocus(true);
              setKeyboardNode(keyboardStart(nodesOnScreen()));
            }}
            onBlur={() => setHasFocus(false)}
          />
        )}
        {!failure && <div ref={keyboardRing} class="keyboard-ring" hidden aria-hidden="true" />}
      </div>
      <p class="muted small graph-count">
        {props.nodes.length} nodes · {props.edges.length} edges
      </p>
      <p id={keysHint} class="visually-hidden">
        Arrow keys move between the entities drawn, Page Down and Page Up by how connected they are; Enter
        opens one, Space or + expands it.
      </p>
      <p class="visually-hidden" aria-live="polite" data-testid="graph-announcement">
        {hasFocus && keyboardNodeData
          ? `${keyboardNodeData.name}, ${keyboardNodeData.type || "entity"}, ${keyboardNodeData.degree} relationships${
              keyboardNodeData.id === props.selected ? ", open" : ""
            }`
          : ""}
      </p>
    </div>
  );
}

/** Label widths in pixels, measured once per label text in the font sigma draws them in. */
class LabelWidths {
  private readonly widths = new Map<string, number>();
  private context: CanvasRenderingContext2D | null | undefined;

  of(label: string): number {
    const known = this.widths.get(label);
    if (known !== undefined) return known;
    if (this.context === undefined) {
      this.context = document.createElement("canvas").getContext("2d");
      if (this.context) this.context.font = `${LABEL_SIZE}px ${LABEL_FONT}`;
    }
    // Without a 2D context, an average glyph's width (a little over half the font size) per character.
    const width = this.context ? this.context.measureText(label).width : label.length * LABEL_SIZE * 0.6;
    this.widths.set(label, width);
    return width;
  }
}

/** Whether a node is drawn faint: some nodes are emphasised, and not this one. */
function fades(emphasised: ReadonlySet<string> | undefined, node: string): boolean {
  return emphasised !== undefined && emphasised.size > 0 && !emphasised.has(node);
}

/** Settings that cost little on a small graph and most of the frame on a large one (see LARGE_GRAPH_NODES). */
function tuneForSize(sigma: Sigma<NodeAttributes, Attributes, Attributes, LabelState>, nodes: number): void {
  const large = nodes >= LARGE_GRAPH_NODES;
  if (sigma.getSetting("hideLabelsOnMove") === large) return;
  sigma.setSetting("hideLabelsOnMove", large);
  sigma.setSetting("labelDensity", large ? 0.2 : 0.5);
}

/** Adds missing nodes and edges, drops those gone; returns how many nodes were added. */
function syncGraph(
  graph: Graph<NodeAttributes>,
  nodes: GraphNodeData[],
  edges: GraphEdgeData[],
  styleOf: (node: GraphNodeData) => { category: string; color: string; baseColor: string },
): number {
  const wanted = new Set(nodes.map((node) => node.id));
  for (const node of graph.nodes()) if (!wanted.has(node)) graph.dropNode(node);
  let added = 0;
  const neighbourOf = neighbourIndex(edges);
  for (const node of nodes) {
    const style = styleOf(node);
    if (graph.hasNode(node.id)) {
      graph.mergeNodeAttributes(node.id, style);
      continue;
    }
    const anchor = (neighbourOf.get(node.id) ?? []).find((id) => graph.hasNode(id));
    graph.addNode(node.id, {
      ...startPosition(graph, anchor),
      size: sizeForDegree(node.degree),
      label: node.name,
      ...style,
    });
    added += 1;
  }
  for (const edge of edges) {
    if (!graph.hasNode(edge.source) || !graph.hasNode(edge.target) || edge.source === edge.target) continue;
    if (graph.hasEdge(edge.source, edge.target)) continue;
    graph.addEdge(edge.source, edge.target, {
      size: Math.min(4, 0.5 + Math.log1p(edge.weight)),
      color: "#c8c8c8",
    });
  }
  return added;
}

function neighbourIndex(edges: GraphEdgeData[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  const add = (from: string, to: string) => {
    const list = index.get(from);
    if (list) list.push(to);
    else index.set(from, [to]);
  };
  for (const { source, target } of edges) {
    add(source, target);
    add(target, source);
  }
  return index;
}

/** Next to an existing neighbour when there is one, so an expansion grows out of the clicked node. */
function startPosition(graph: Graph<NodeAttributes>, anchor: string | undefined): { x: number; y: number } {
  const angle = Math.random() * Math.PI * 2;
  if (anchor) {
    const { x, y } = graph.getNodeAttributes(anchor);
    return { x: x + Math.cos(angle) * 5, y: y + Math.sin(angle) * 5 };
  }
  // Spread over a disc rather than a ring, so ForceAtlas2 starts from no particular shape.
  const radius = (10 + Math.sqrt(graph.order) * 10) * Math.sqrt(Math.random());
  return { x: Math.cos(angle) * radius, y: Math.sin(angle) * radius };
}
