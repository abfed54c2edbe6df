import { useEffect, useRef, useState } from "preact/hooks";
import { api, type EntityRow, type Neighbourhood } from "../api";
import { EntitySearch } from "../components/EntitySearch";
import { errorText } from "../components/errors";
import { communityLabels } from "../graph/colors";
import GraphCanvas from "../graph/GraphCanvas";
import type { ColourBy, GraphEdgeData, GraphNodeData } from "../graph/types";
import { pushRoute, replaceRoute, routeHash } from "../route";
import { EntityPanel } from "./EntityPanel";

interface GraphState {
  nodes: GraphNodeData[];
  edges: GraphEdgeData[];
  truncated: boolean;
}

const EMPTY: GraphState = { nodes: [], edges: [], truncated: false };

/**
 * The route's entity once Clear emptied the explorer (`#/graph?entity=`): unlike a route with no
 * entity, which opens on the best connected one, it opens on nothing.
 */
const CLEARED = "";

/** Adds a neighbourhood to what is on screen, keeping node and edge ids unique. */
function mergeNeighbourhood(state: GraphState, hood: Neighbourhood): GraphState {
  const nodes = new Map(state.nodes.map((node) => [node.id, node]));
  for (const node of hood.nodes) nodes.set(node.id, { ...nodes.get(node.id), ...node });
  const edges = new Map(state.edges.map((edge) => [edge.id, edge]));
  for (const edge of hood.edges) edges.set(edge.id, edge);
  return {
    nodes: [...nodes.values()],
    edges: [...edges.values()],
    truncated: state.truncated || hood.truncated,
  };
}

/**
 * Graph explorer: search an entity, show its neighbourhood, expand on click, read details in the
 * side panel. The entity shown is in the route (`#/graph?entity=<name>`): each one the user picks,
 * and Clear, is a history entry, so a reload shows it again and Back returns to the one before.
 */
export default function GraphView(props: { entity?: string }) {
  const [graph, setGraph] = useState<GraphState>(EMPTY);
  const [selected, setSelected] = useState<string>();
  const [colourBy, setColourBy] = useState<ColourBy>("community");
  const [depth, setDepth] = useState(1);
  const [maxNodes, setMaxNodes] = useState(200);
  /** The most connected entities, once the server has answered (none: nothing is indexed yet). */
  const [popular, setPopular] = useState<EntityRow[]>();
  const [failure, setFailure] = useState<string>();
  const [loading, setLoading] = useState(false);
  /** Bumped by an edit in the panel, so the panel reads the entity again under the same name. */
  const [revision, setRevision] = useState(0);
  /** The legend's words for community ids (their reports' titles), once the list has come. */
  const [communityNames, setCommunityNames] = useState<ReadonlyMap<string, string>>();

  useEffect(() => {
    api
      .communities()
      .then((items) => setCommunityNames(communityLabels(items)))
      // The legend shows the ids instead.
      .catch(() => undefined);
  }, []);

  /**
   * The graph on screen: a search (or Clear) starts a new one, and an expansion asked for an older
   * one is dropped when it answers, so a slow earlier search cannot replace a later one.
   */
  const shown = useRef(0);
  /**
   * The expansion asked for last: every answer still grows the graph it was asked for, but only
   * the last one selects its entity and ends "Loading…" (two clicks answered out of order would
   * otherwise open the first one's panel, and hide "Loading…" while the second still loads).
   */
  const asked = useRef(0);

  async function expand(name: string, replace = false) {
    const graphId = replace ? ++shown.current : shown.current;
    const askId = ++asked.current;
    setLoading(true);
    setFailure(undefined);
    try {
      const hood = await api.neighbourhood(name, depth, maxNodes);
      if (graphId !== shown.current) return;
      setGraph((current) => mergeNeighbourhood(replace ? EMPTY : current, hood));
      if (askId === asked.current) setSelected(name);
    } catch (error) {
      // A new graph that cannot start (an entity gone, a mistyped address) leaves none on screen,
      // not the previous one under the error.
      if (replace && graphId === shown.current) {
        setGraph(EMPTY);
        setSelected(undefined);
      }
      if (askId === asked.current) setFailure(errorText(error));
    } finally {
      if (askId === asked.current) setLoading(false);
    }
  }

  /**
   * The entity the route names or is about to name: a route change to it is this view's own doing
   * (a pick below), any other (Back, Forward, a link) is followed.
   */
  const routed = useRef<string | undefined>(undefined);

  /** Shows an entity the user picked and makes it the route's, as a new history entry or in place of this one. */
  function pick(name: string, replace: boolean, history: "push" | "replace" = "push") {
    routed.current = name;
    (history === "push" ? pushRoute : replaceRoute)(routeHash("graph", { entity: name }));
    void expand(name, replace);
  }

  /** Opens the panel of an entity on screen (Enter on the graph), as a history entry, expanding nothing. */
  function open(name: string) {
    routed.current = name;
    pushRoute(routeHash("graph", { entity: name }));
    reselect(name);
  }

  /** Selects an entity already on screen, dropping the answer of any expansion still out. */
  function reselect(name: string) {
    asked.current += 1;
    setLoading(false);
    setFailure(undefined);
    setSelected(name);
  }

  /** Empties the graph and the panel, dropping the answers of expansions still out. */
  function showNothing() {
    shown.current += 1;
    asked.current += 1;
    setGraph(EMPTY);
    setSelected(undefined);
    setFailure(undefined);
    setLoading(false);
  }

  /** Clear is a history entry like a pick: Back shows the entity before it, a reload stays empty. */
  const clear = () => {
    routed.current = CLEARED;
    pushRoute(routeHash("graph", { entity: CLEARED }));
    showNothing();
  };

  useEffect(() => {
    const name = props.entity;
    if (name === undefined) {
      // The Graph tab (no entity): the route keeps naming the entity shown (or none, once cleared).
      if (routed.current !== undefined) replaceRoute(routeHash("graph", { entity: routed.current }));
      return;
    }
    if (name === routed.current) return;
    routed.current = name;
    if (name === CLEARED) {
      showNothing();
      return;
    }
    // Back or Forward to an entity still on screen selects it; another one starts a graph from it.
    if (graph.nodes.some((node) => node.id === name)) reselect(name);
    else void expand(name, true);
  }, [props.entity]);

  useEffect(() => {
    let live = true;
    api
      .popularEntities(30)
      .then((items) => {
        if (!live) return;
        setPopular(items);
        // No entity in the route: the best connected one, named in the route in place of the bare one.
        const start = items[0]?.name;
        if (routed.current === undefined && start) pick(start, true, "replace");
      })
      .catch((error: unknown) => live && setFailure(errorText(error)));
    return () => {
      live = false;
    };
  }, []);

  return (
    <div class="graph-view">
      <div class="graph-main">
        <div class="toolbar">
          <EntitySearch onPick={(name) => pick(name, true)} />
          <label class="inline">
            Colour by{" "}
            <select
              value={colourBy}
              onChange={(event) => setColourBy((event.target as HTMLSelectElement).value as ColourBy)}
            >
              <option value="community">community</option>
              <option value="type">type</option>
            </select>
          </label>
          <label class="inline">
            Depth{" "}
            <select
              value={depth}
              onChange={(event) => setDepth(Number((event.target as HTMLSelectElement).value))}
            >
              <option value={1}>1</option>
              <option value={2}>2</option>
              <option value={3}>3</option>
            </select>
          </label>
          <label class="inline">
            Max nodes{" "}
            <select
              value={maxNodes}
              onChange={(event) => setMaxNodes(Number((event.target as HTMLSelectElement).value))}
            >
              {[100, 200, 500, 1000, 2000].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={clear}>
            Clear
          </button>
          {loading && <span class="muted">Loading…</span>}
        </div>
        {failure && <p class="error">{failure}</p>}
        {graph.truncated && (
          <p class="muted small">The server capped this neighbourhood; expand nodes to see more.</p>
        )}
        {graph.nodes.length === 0 && popular?.length === 0 && (
          <p class="muted">
            No entity yet: this workspace has nothing indexed. Add documents in{" "}
            <a href={routeHash("documents")}>Documents</a>, and their graph shows here.
          </p>
        )}
        {graph.nodes.length === 0 && popular && popular.length > 0 && (
          <p class="chips">
            {popular.map((entity) => (
              <button type="button" key={entity.name} onClick={() => pick(entity.name, true)}>
                {entity.name}
              </button>
            ))}
          </p>
        )}
        <GraphCanvas
          nodes={graph.nodes}
          edges={graph.edges}
          colourBy={colourBy}
          categoryLabels={colourBy === "community" ? communityNames : undefined}
          selected={selected}
          onNodeClick={(id) => pick(id, false)}
          onNodeOpen={open}
          onNodeExpand={(id) => pick(id, false)}
        />
      </div>
      {selected && (
        <EntityPanel
          key={`${selected}#${revision}`}
          name={selected}
          communityNames={communityNames}
          onExpand={(name) => pick(name, false)}
          onChanged={(name) => {
            // Node ids are names: after a rename or merge the neighbourhood is drawn again, and the
            // route names the entity by its name now (the old one names nothing).
            setRevision((n) => n + 1);
            // The panel opens under that name at once: selected only when the neighbourhood
            // answers, it would open under the old name first, then anew (closing a form opened
            // in between).
            setSelected(name);
            pick(name, true, "replace");
          }}
        />
      )}
    </div>
  );
}
