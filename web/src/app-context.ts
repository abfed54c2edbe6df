import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Passage, Workspace } from "./api";
import type { PassageHighlight } from "./components/highlight";

export type { PassageHighlight };

/** What any view may ask of the shell: the workspace, the passage reader and navigation. */
export interface AppActions {
  workspace: Workspace | undefined;
  /**
   * Opens a passage; `highlight` is terms or character ranges to mark in it. A passage the view
   * already holds (query context, entity sources) is shown as is; otherwise it is fetched.
   */
  openPassage(chunkId: string, highlight?: PassageHighlight, known?: Passage): void;
  navigate(route: string, params?: Record<string, string>): void;
}

export const AppContext = createContext<AppActions>({
  workspace: undefined,
  openPassage: () => undefined,
  navigate: () => undefined,
});

export function useApp(): AppActions {
  return useContext(AppContext);
}
