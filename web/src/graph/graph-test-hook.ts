import type { Attributes } from "graphology-types";
import type Sigma from "sigma";
import {
  type Box,
  type LabelGeometry,
  type LabelPlacement,
  type LabelSide,
  labelBox,
} from "./label-placement";

/** A node's label, where it is or would be drawn, for the browser tests (see `window.kgragGraph`). */
export interface DrawnLabel {
  node: string;
  /** Whether sigma draws the label in this frame (it leaves some out where labels crowd). */
  shown: boolean;
  x: number;
  y: number;
  side: LabelSide;
  box: Box;
}

/** What the browser tests read and do through `window.kgragGraph`. */
export interface GraphTestHook {
  labels(): DrawnLabel[];
  /** Pans the view so `node` is drawn at (x, y) in the canvas, as a drag would. */
  panNodeTo(node: string, x: number, y: number): void;
  /** Draws `node` as under the pointer (its label shown however crowded), none without one. */
  hover(node?: string): void;
  /**
   * Settles once a frame is drawn (one is asked for) in which every label shown already lies on
   * the side placeLabels gives it: what `labels()` then reads is what is on screen.
   */
  labelsPlaced(): Promise<void>;
}

declare global {
  interface Window {
    kgragGraph?: GraphTestHook;
  }
}

/** The renderer as the canvas sets it up (nodes of attributes N): per node, the side its label is drawn on. */
export type LabelledSigma<N extends Attributes> = Sigma<
  N,
  Attributes,
  Attributes,
  { labelPlacement: LabelPlacement }
>;

/** What the hook reads of the canvas, each read when the test calls. */
export interface GraphTestParts<N extends Attributes> {
  /** The renderer, while the canvas has one. */
  sigma(): LabelledSigma<N> | undefined;
  /** The nodes drawn (a large graph's layout draws no edges, every node). */
  drawnNodes(): string[];
  labelGeometry(node: string): LabelGeometry | undefined;
  /** Whether placeLabels moved a label after the last frame (drawn in the next one). */
  labelsMoved(): boolean;
}

/**
 * Puts the canvas's test hook on `window.kgragGraph`; returns its removal. Loaded only when a
 * browser test asks for it (see graphTestHookWanted), so users' pages carry none of it.
 */
export function installGraphTestHook<N extends Attributes>(parts: GraphTestParts<N>): () => void {
  /** The node the hook draws as hovered. */
  let hovered: string | undefined;
  const isDrawn = (node: string) => parts.drawnNodes().includes(node);

  const hook: GraphTestHook = {
    labels() {
      const sigma = parts.sigma();
      if (!sigma) return [];
      const shown = sigma.getNodeDisplayedLabels();
      return parts.drawnNodes().flatMap((node) => {
        const geometry = parts.labelGeometry(node);
        if (!geometry) return [];
        const placement = sigma.getNodeState(node).labelPlacement;
        const side = placement === "hidden" ? "right" : placement;
        return [
          { node, shown: shown.has(node), x: geometry.x, y: geometry.y, side, box: labelBox(geometry, side) },
        ];
      });
    },
    panNodeTo(node, x, y) {
      const sigma = parts.sigma();
      const geometry = parts.labelGeometry(node);
      if (!sigma || !geometry) return;
      const { width, height } = sigma.getDimensions();
      const centre = sigma.viewportToFramedGraph({
        x: width / 2 - (x - geometry.x),
        y: height / 2 - (y - geometry.y),
      });
      sigma.getCamera().setState(centre);
    },
    hover(node) {
      const sigma = parts.sigma();
      if (!sigma) return;
      if (hovered !== undefined && isDrawn(hovered)) sigma.setNodeState(hovered, { isHovered: false });
      hovered = node !== undefined && isDrawn(node) ? node : undefined;
      if (hovered !== undefined) sigma.setNodeState(hovered, { isHovered: true });
    },
    labelsPlaced() {
      const sigma = parts.sigma();
      if (!sigma) return Promise.resolve();
      return new Promise((resolve) => {
        // After the frame's own listener (registered first), which placed its labels.
        const onFrame = () => {
          if (parts.labelsMoved()) return;
          sigma.off("afterRender", onFrame);
          resolve();
        };
        sigma.on("afterRender", onFrame);
        sigma.scheduleRefresh();
      });
    },
  };
  window.kgragGraph = hook;
  return () => {
    if (window.kgragGraph === hook) window.kgragGraph = undefined;
  };
}
