import { useEffect, useRef, useState } from "preact/hooks";
import { api, type EntityRow, type Neighbourhood } from "../api";
import { EntitySearch } from "../components/EntitySearch";
import { errorText } from "../components/errors";
import { communityLabels } from "../graph/colors";
import GraphCanvas from "../graph/GraphCanvas";
import type { ColourBy, GraphEdgeData, GraphNodeData } from "../graph/types";
import { EntityPanel } from "./EntityPanel";

interface GraphState {
  nodes: GraphNodeData[];
  edges: GraphEdgeData[];
  truncated: boolean;
}

const EMPTY: GraphState = { nodes: [], edges: [], truncated: false };

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

/** Graph explorer: search an entity, show its neighbourhood, expand on click, read details in the side panel. */
export default function GraphView(props: { entity?: string }) {
  const [graph, setGraph] = useState<GraphState>(EMPTY);
  const [selected, setSelected] = useState<string>();
  const [colourBy, setColourBy] = useState<ColourBy>("community");
  const [depth, setDepth] = useState(1);
  const [maxNodes, setMaxNodes] = useState(200);
  const [popular, setPopular] = useState<EntityRow[]>([]);
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
      if (askId === asked.current) setFailure(errorText(error));
    } finally {
      if (askId === asked.current) setLoading(false);
    }
  }

  const clear = () => {
    shown.current += 1;
    asked.current += 1;
    setGraph(EMPTY);
    setLoading(false);
  };

  useEffect(() => {
    // Another entity in the route meanwhile starts from that one instead.
    let live = true;
    api
      .popularEntities(30)
      .then((items) => {
        if (!live) return;
        setPopular(items);
        const start = props.entity ?? items[0]?.name;
        if (start) void expand(start, true);
      })
      .catch((error: unknown) => live && setFailure(errorText(error)));
    return () => {
      live = false;
    };
  }, [props.entity]);

  return (
    <div class="graph-view">
      <div class="graph-main">
        <div class="toolbar">
          <EntitySearch onPick={(name) => void expand(name, true)} />
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
        {graph.nodes.length === 0 && popular.length > 0 && (
          <p class="chips">
            {popular.map((entity) => (
              <button type="button" key={entity.name} onClick={() => void expand(entity.name, true)}>
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
          onNodeClick={(id) => void expand(id)}
        />
      </div>
      {selected && (
        <EntityPanel
          key={`${selected}#${revision}`}
          name={selected}
          communityNames={communityNames}
          onExpand={(name) => void expand(name)}
          onChanged={(name) => {
            // Node ids are names: after a rename or merge the neighbourhood is drawn again.
            setRevision((n) => n + 1);
            void expand(name, true);
          }}
        />
      )}
    </div>
  );
}
