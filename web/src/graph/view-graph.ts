import type { AbstractGraph, Attributes } from "graphology-types";

/** Asks for a callback before the next repaint (the browser's requestAnimationFrame). */
export type FrameScheduler = (callback: () => void) => void;

/**
 * The graph sigma draws, mirrored from the model graph that ForceAtlas2 lays out. Nodes and their
 * attributes follow the model as they change; positions written by the layout are copied at most once
 * per animation frame; edges can be left out while the layout moves the nodes, because a browser
 * without a GPU spends most of each frame on thousands of edges (and sigma processes hidden edges
 * too, so only edges absent from its graph cost nothing).
 */
export class ViewGraph<N extends Attributes & { x: number; y: number }> {
  private edgesShown = true;
  /** A pending copy of the layout's positions (a timer, then an animation frame). */
  private positionFrame: ReturnType<typeof setTimeout> | "frame" | undefined;
  private killed = false;
  private lastCopy = 0;
  /** The shortest time between two copies of the layout's positions, in ms. */
  positionGapMs = 0;
  private readonly detach: () => void;

  constructor(
    private readonly model: AbstractGraph<N>,
    readonly view: AbstractGraph<N>,
    private readonly nextFrame: FrameScheduler,
  ) {
    const nodeAdded = ({ key, attributes }: { key: string; attributes: N }) =>
      view.mergeNode(key, { ...attributes });
    const nodeDropped = ({ key }: { key: string }) => {
      if (view.hasNode(key)) view.dropNode(key);
    };
    const nodeUpdated = ({ key }: { key: string }) =>
      view.replaceNodeAttributes(key, { ...model.getNodeAttributes(key) });
    const edgeAdded = ({
      source,
      target,
      attributes,
    }: {
      source: string;
      target: string;
      attributes: Attributes;
    }) => {
      if (this.edgesShown) view.mergeEdge(source, target, { ...attributes });
    };
    const edgeDropped = ({ source, target }: { source: string; target: string }) => {
      if (view.hasEdge(source, target)) view.dropEdge(source, target);
    };
    const positionsMoved = () => this.schedulePositions();
    const cleared = () => view.clear();
    const listeners = [
      ["nodeAdded", nodeAdded],
      ["nodeDropped", nodeDropped],
      ["nodeAttributesUpdated", nodeUpdated],
      ["edgeAdded", edgeAdded],
      ["edgeDropped", edgeDropped],
      ["eachNodeAttributesUpdated", positionsMoved],
      ["cleared", cleared],
    ] as const;
    for (const [event, listener] of listeners) model.on(event, listener);
    this.detach = () => {
      for (const [event, listener] of listeners) model.off(event, listener);
    };
  }

  /** Shows the model's edges, or leaves them all out of the drawn graph. */
  showEdges(shown: boolean): void {
    if (shown === this.edgesShown) return;
    this.edgesShown = shown;
    this.copyPositions();
    if (!shown) {
      this.view.clearEdges();
      return;
    }
    this.model.forEachEdge((_edge, attributes, source, target) => {
      this.view.mergeEdge(source, target, { ...attributes });
    });
  }

  get showingEdges(): boolean {
    return this.edgesShown;
  }

  kill(): void {
    this.killed = true;
    this.detach();
    if (this.positionFrame !== undefined && this.positionFrame !== "frame") clearTimeout(this.positionFrame);
  }

  /**
   * The layout reports many more steps than the screen can show: positions are copied on an animation
   * frame, and no sooner than `positionGapMs` after the previous copy, so a slow renderer keeps time for
   * the user's panning and zooming.
   */
  private schedulePositions(): void {
    if (this.positionFrame !== undefined) return;
    const wait = Math.max(0, this.lastCopy + this.positionGapMs - performance.now());
    this.positionFrame = setTimeout(() => {
      this.positionFrame = "frame";
      this.nextFrame(() => {
        this.positionFrame = undefined;
        if (!this.killed) this.copyPositions();
      });
    }, wait);
  }

  private copyPositions(): void {
    const { model } = this;
    this.lastCopy = performance.now();
    // One event for all nodes: sigma reprocesses once, not once per node.
    this.view.updateEachNodeAttributes(
      (node, attributes) => {
        if (!model.hasNode(node)) return attributes;
        const { x, y } = model.getNodeAttributes(node);
        attributes.x = x;
        attributes.y = y;
        return attributes;
      },
      { attributes: ["x", "y"] },
    );
  }
}
