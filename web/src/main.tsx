import { render } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import {
  ApiError,
  api,
  type Passage,
  saveApiKey,
  savedApiKey,
  usesNeo4j,
  useWorkspace,
  type Workspace,
} from "./api";
import { type AppActions, AppContext, type PassageHighlight } from "./app-context";
import { PassageDialog } from "./components/PassageDialog";
import { lazyComponent } from "./lazy";
import {
  linkWorkspace,
  pushRoute,
  replaceRoute,
  routeHash,
  useRoute,
  WORKSPACE_PARAM,
  withWorkspace,
} from "./route";
import "./styles.css";
import { AskView } from "./views/AskView";
import { AskStore } from "./views/ask-session";
import { CommunitiesView } from "./views/CommunitiesView";
import { DocumentsView } from "./views/DocumentsView";
import { chooseWorkspace } from "./workspace-choice";

// The graph explorer (sigma, graphology, ForceAtlas2) and the Neo4j tools load on first visit.
const GraphView = lazyComponent(() => import("./views/GraphView"));
const Neo4jView = lazyComponent(() => import("./views/Neo4jView"));

const WORKSPACE_STORAGE = "kgrag.workspace";

function App() {
  const route = useRoute();
  /** The workspaces this key may use; undefined until the server said. */
  const [offered, setOffered] = useState<Workspace[]>();
  const workspaces = offered ?? [];
  const [savedWorkspace, setSavedWorkspace] = useState(() => localStorage.getItem(WORKSPACE_STORAGE) ?? "");
  const [needsKey, setNeedsKey] = useState(false);
  /** The server's words when it refused the key sent (not valid, or no workspace for it). */
  const [keyRefused, setKeyRefused] = useState<string>();
  const [keyDraft, setKeyDraft] = useState(savedApiKey);
  const [loadError, setLoadError] = useState<string>();
  const [passage, setPassage] = useState<{
    chunkId: string;
    highlight?: PassageHighlight;
    known?: Passage;
    /** The workspace and key it was opened with: another one (Back, a link) closes it. */
    openedIn: string;
  }>();
  const [keyVersion, setKeyVersion] = useState(0);

  useEffect(() => {
    api
      .workspaces()
      .then((list) => {
        setNeedsKey(false);
        setKeyRefused(undefined);
        setLoadError(undefined);
        setOffered(list);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
          setNeedsKey(true);
          setKeyRefused(savedApiKey() ? error.message : undefined);
        } else setLoadError(error instanceof Error ? error.message : String(error));
      });
  }, [keyVersion]);

  // The address names the workspace (a link opens the one it was made in), else the one last used.
  const linked = route.params.get(WORKSPACE_PARAM) || undefined;
  const choice = chooseWorkspace(
    workspaces.map((w) => w.id),
    linked,
    savedWorkspace || undefined,
  );
  const workspace = workspaces.find((w) => w.id === choice.id);
  // Set before children render, so their first requests and links already name the workspace.
  // An address naming one this key may not open keeps naming it: a stray request is refused by
  // the server, never answered from another workspace.
  const named = workspace?.id ?? choice.unavailable ?? "";
  useWorkspace(named);
  linkWorkspace(named);

  useEffect(() => {
    if (!workspace) return;
    // An address without a workspace (an older link, a bare visit) gets the one shown...
    if (!linked) replaceRoute(withWorkspace(location.hash, workspace.id));
    // ...and one opened from an address becomes the one a bare visit opens next.
    else if (linked === workspace.id && linked !== savedWorkspace) saveWorkspace(workspace.id);
    // On the saved one too: a pick (which saves it) undone by Back before the app rendered its
    // address leaves the workspace and address as they were, and the pick saved.
  }, [workspace?.id, linked, savedWorkspace]);
  // The Ask view's question and answers outlive the view (a visit to the graph and back keeps
  // them), not the workspace or key they were asked with.
  const askStore = useMemo(() => new AskStore(), [workspace?.id, keyVersion]);
  useEffect(() => () => askStore.close(), [askStore]);

  const saveWorkspace = (id: string) => {
    localStorage.setItem(WORKSPACE_STORAGE, id);
    setSavedWorkspace(id);
  };
  /** Another workspace is another address (Back returns to the one before): its view, from the start. */
  const pickWorkspace = (id: string) => {
    saveWorkspace(id);
    pushRoute(routeHash(route.view, {}, id));
  };
  const saveKey = (event: Event) => {
    event.preventDefault();
    saveApiKey(keyDraft.trim());
    setKeyVersion((v) => v + 1);
  };
  const shownIn = `${named}:${keyVersion}`;
  const openPassage = useCallback(
    (chunkId: string, highlight?: PassageHighlight, known?: Passage) =>
      setPassage({ chunkId, highlight, known, openedIn: shownIn }),
    [shownIn],
  );
  const closePassage = useCallback(() => setPassage(undefined), []);
  // ...and forgotten, so coming back to the workspace does not open it again.
  useEffect(() => setPassage(undefined), [shownIn]);
  const actions = useMemo<AppActions>(
    () => ({
      workspace,
      openPassage,
      navigate: (view, params) => {
        pushRoute(routeHash(view, params));
      },
    }),
    [workspace, openPassage],
  );

  const tabs: Array<[string, string]> = [
    ["documents", "Documents"],
    ["graph", "Graph"],
    ["ask", "Ask"],
    ["communities", "Communities"],
  ];
  if (usesNeo4j(workspace)) tabs.push(["neo4j", "Neo4j"]);

  return (
    <AppContext.Provider value={actions}>
      <header class="topbar">
        <strong class="brand">kgrag</strong>
        <nav>
          {tabs.map(([view, label]) => (
            <a
              key={view}
              href={routeHash(view)}
              class={route.view === view ? "active" : ""}
              aria-current={route.view === view ? "page" : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        {workspaces.length > 1 && (
          <label class="inline">
            Workspace{" "}
            <select
              value={named}
              onChange={(event) => pickWorkspace((event.target as HTMLSelectElement).value)}
            >
              {choice.unavailable && (
                <option value={choice.unavailable} disabled>
                  {choice.unavailable} (not available)
                </option>
              )}
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.id}
                </option>
              ))}
            </select>
          </label>
        )}
        {workspaces.length === 1 && <span class="muted small">{workspace?.id}</span>}
        {(needsKey || savedApiKey()) && (
          <form class="inline" onSubmit={saveKey}>
            <input
              type="password"
              aria-label="API key"
              placeholder="API key"
              // Asked for, the key is the one thing to type: the field has the focus.
              ref={(field) => {
                if (field && needsKey && document.activeElement === document.body) field.focus();
              }}
              value={keyDraft}
              onInput={(event) => setKeyDraft((event.target as HTMLInputElement).value)}
            />
            <button type="submit">Save key</button>
          </form>
        )}
      </header>
      <main key={`${workspace?.id ?? ""}:${keyVersion}`}>
        {needsKey &&
          (keyRefused ? (
            <p class="error" role="alert">
              The server refused the API key: {keyRefused}. Enter another above.
            </p>
          ) : (
            <p class="error" role="alert">
              This server needs an API key: enter it above.
            </p>
          ))}
        {loadError && <p class="error">Cannot reach the server: {loadError}</p>}
        {offered && choice.unavailable && (
          <UnavailableWorkspace
            named={choice.unavailable}
            offered={workspaces.map((w) => w.id)}
            view={route.view}
            withKey={Boolean(savedApiKey())}
          />
        )}
        {!needsKey && workspace && (
          <CurrentView view={route.view} params={route.params} askStore={askStore} />
        )}
      </main>
      {passage?.openedIn === shownIn && (
        <PassageDialog
          chunkId={passage.chunkId}
          highlight={passage.highlight}
          known={passage.known}
          onClose={closePassage}
        />
      )}
    </AppContext.Provider>
  );
}

/**
 * An address naming a workspace this server (or this key) does not offer: said, with a link to
 * the same view in each one it does, none of the address's entity or community carried over.
 */
function UnavailableWorkspace({
  named,
  offered,
  view,
  withKey,
}: {
  named: string;
  offered: string[];
  view: string;
  withKey: boolean;
}) {
  return (
    <section class="unavailable-workspace" role="alert">
      <p class="error">
        {withKey
          ? `This API key cannot open workspace “${named}”.`
          : `This server does not offer workspace “${named}”.`}
      </p>
      {offered.length > 0 ? (
        <p>
          {withKey ? "Workspaces it can open: " : "Its workspaces: "}
          {offered.map((id, i) => (
            <span key={id}>
              {i > 0 && ", "}
              <a href={routeHash(view, {}, id)}>{id}</a>
            </span>
          ))}
        </p>
      ) : (
        <p>{withKey ? "It cannot open any workspace here." : "It offers no workspace."}</p>
      )}
    </section>
  );
}

function CurrentView({
  view,
  params,
  askStore,
}: {
  view: string;
  params: URLSearchParams;
  askStore: AskStore;
}) {
  switch (view) {
    case "graph":
      return <GraphView entity={params.get("entity") ?? undefined} />;
    case "ask":
      return <AskView store={askStore} />;
    case "communities":
      return <CommunitiesView selected={params.get("community") ?? undefined} />;
    case "neo4j":
      return <Neo4jView />;
    default:
      return <DocumentsView />;
  }
}

const root = document.getElementById("app");
if (root) render(<App />, root);
