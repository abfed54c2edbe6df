import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { api, type CommunityDetail, type CommunityItem } from "../api";
import { useApp } from "../app-context";
import { communityMeta } from "../components/community-meta";
import { buildTree, filterTree, type TreeNode } from "../components/community-tree";
import { errorText } from "../components/errors";
import { ReportText } from "../components/ReportText";
import type { GraphEdgeData, GraphNodeData } from "../graph/types";
import { lazyComponent } from "../lazy";
import { replaceRoute, routeHash } from "../route";

const GraphCanvas = lazyComponent(() => import("../graph/GraphCanvas"));

/** Members drawn with their neighbours; more would make one request per member past what helps reading. */
const MEMBERS_ON_GRAPH = 25;

interface MembersGraph {
  nodes: GraphNodeData[];
  edges: GraphEdgeData[];
}

const NO_GRAPH: MembersGraph = { nodes: [], edges: [] };

/** A retired community id the address named, and the community answered for it. */
interface Moved {
  from: string;
  to: string;
}

/**
 * Communities: the hierarchy as a tree, the selected community's report and its members on the
 * graph. The selection is in the route (`#/communities?community=<id>`), so a [C:id] citation can
 * open a report and the back button returns to the one read before. An address naming a community
 * retired by a later index run shows the one that took its members, says so, and names it instead.
 */
export function CommunitiesView({ selected }: { selected?: string }) {
  const { navigate } = useApp();
  const [items, setItems] = useState<CommunityItem[]>([]);
  const [detail, setDetail] = useState<CommunityDetail>();
  const [graph, setGraph] = useState<MembersGraph>(NO_GRAPH);
  const [failure, setFailure] = useState<string>();
  const [detailFailure, setDetailFailure] = useState<string>();
  const [moved, setMoved] = useState<Moved>();
  const tree = useMemo(() => buildTree(items), [items]);
  /** Words a community's title must hold to be listed (with its ancestors): thousands are too many to scroll. */
  const [titleFilter, setTitleFilter] = useState("");
  const shown = useMemo(() => filterTree(tree, titleFilter), [tree, titleFilter]);

  useEffect(() => {
    api
      .communities()
      .then(setItems)
      .catch((error: unknown) => setFailure(errorText(error)));
  }, []);

  // One community's answers at a time: picking another aborts the requests for the one before, so
  // a slow report or graph cannot land beside the next community's.
  useEffect(() => {
    setDetail(undefined);
    setGraph(NO_GRAPH);
    setDetailFailure(undefined);
    // The notice stays for the community the retired id led to, and goes with the next pick.
    setMoved((before) => (before?.to === selected ? before : undefined));
    if (!selected) return;
    const request = new AbortController();
    const { signal } = request;
    api
      .community(selected, signal)
      .then(async (found) => {
        if (signal.aborted) return;
        if (found.movedFrom !== undefined) {
          // The address names what is shown, so a reload or a shared link asks for it directly.
          setMoved({ from: found.movedFrom, to: found.community.id });
          replaceRoute(routeHash("communities", { community: found.community.id }));
          return;
        }
        setDetail(found);
        const drawn = await membersGraph(found.members.slice(0, MEMBERS_ON_GRAPH), signal);
        if (!signal.aborted) setGraph(drawn);
      })
      .catch((error: unknown) => {
        if (!signal.aborted) setDetailFailure(errorText(error));
      });
    return () => request.abort();
  }, [selected]);

  const members = useMemo(() => new Set(detail?.members ?? []), [detail]);

  return (
    <div class="communities-view">
      <nav class="community-tree" aria-label="Community hierarchy">
        <h2>
          Communities ({shown.matches === undefined ? "" : `${shown.matches} of `}
          {items.length})
        </h2>
        {items.length > 0 && (
          <input
            type="search"
            class="tree-filter"
            aria-label="Filter communities"
            placeholder="Filter by title…"
            value={titleFilter}
            onInput={(event) => setTitleFilter((event.target as HTMLInputElement).value)}
          />
        )}
        {failure && <p class="error">{failure}</p>}
        {items.length === 0 && !failure && <p class="muted">No communities yet: index documents first.</p>}
        {shown.matches === 0 && (
          <p class="muted" role="status">
            No community title holds “{titleFilter.trim()}”.
          </p>
        )}
        <Tree
          nodes={shown.nodes}
          selected={selected}
          onSelect={(id) => navigate("communities", { community: id })}
        />
      </nav>
      <section class="community-detail">
        {detailFailure && <p class="error">{detailFailure}</p>}
        {!detail && !detailFailure && (
          <p class="muted">{selected ? "Loading the report…" : "Pick a community to read its report."}</p>
        )}
        {detail && moved?.to === detail.community.id && (
          <p class="notice" role="status">
            Community {moved.from} was re-clustered; showing{" "}
            {detail.report?.title || detail.community.title || detail.community.id}, which took its members.
          </p>
        )}
        {detail && (
          <CommunityReport detail={detail}>
            {graph.nodes.length > 0 && (
              <GraphCanvas
                nodes={graph.nodes}
                edges={graph.edges}
                colourBy="type"
                emphasised={members}
                fadedLabel="neighbours outside it"
              />
            )}
            {graph.nodes.length > 0 && detail.members.length > MEMBERS_ON_GRAPH && (
              <p class="muted small">
                The graph draws the first {MEMBERS_ON_GRAPH} of the {detail.members.length} members with their
                neighbours; all of them are listed below.
              </p>
            )}
          </CommunityReport>
        )}
      </section>
    </div>
  );
}

function Tree(props: { nodes: TreeNode<CommunityItem>[]; selected?: string; onSelect(id: string): void }) {
  return (
    <ul class="tree">
      {props.nodes.map((node) => (
        <li key={node.item.id}>
          {/* One line: a long title is cut with an ellipsis (whole in its tooltip), the meta stays whole. */}
          <div class="tree-row">
            <button
              type="button"
              class={`link${props.selected === node.item.id ? " active" : ""}`}
              aria-current={props.selected === node.item.id ? "true" : undefined}
              title={node.item.title || node.item.id}
              onClick={() => props.onSelect(node.item.id)}
            >
              {node.item.title || node.item.id}
            </button>
            <span class="muted small tree-meta" title={communityMeta(node.item).long}>
              {communityMeta(node.item).short}
            </span>
          </div>
          {node.children.length > 0 && (
            <Tree nodes={node.children} selected={props.selected} onSelect={props.onSelect} />
          )}
        </li>
      ))}
    </ul>
  );
}

/** The report's title and summary, the members' graph (children), the members and the full report. */
function CommunityReport({ detail, children }: { detail: CommunityDetail; children?: ComponentChildren }) {
  const { navigate } = useApp();
  const report = detail.report;
  return (
    <article class="report">
      <h2>{report?.title || detail.community.title}</h2>
      {report?.summary && (
        <p class="report-summary">
          <ReportText text={report.summary} citations={detail.citations} />
        </p>
      )}
      {children}
      {report?.text && (
        <details>
          <summary>Full report</summary>
          <pre class="report-text">
            <ReportText text={report.text} citations={detail.citations} />
          </pre>
        </details>
      )}
      <h3>Members ({detail.members.length})</h3>
      <p class="chips">
        {detail.members.map((name) => (
          <button type="button" key={name} onClick={() => navigate("graph", { entity: name })}>
            {name}
          </button>
        ))}
      </p>
    </article>
  );
}

/** The members and the edges between them and their direct neighbours. */
async function membersGraph(members: string[], signal: AbortSignal): Promise<MembersGraph> {
  const hoods = await Promise.all(
    members.map((name) => api.neighbourhood(name, 1, 40, 200, signal).catch(() => undefined)),
  );
  const nodes = new Map<string, GraphNodeData>();
  const edges = new Map<string, GraphEdgeData>();
  for (const hood of hoods) {
    for (const node of hood?.nodes ?? []) nodes.set(node.id, node);
    for (const edge of hood?.edges ?? []) edges.set(edge.id, edge);
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}
