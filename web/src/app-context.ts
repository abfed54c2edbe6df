import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Workspace } from "./api";

/** What any view may ask of the shell: the workspace, the passage reader and navigation. */
export interface AppActions {
  workspace: Workspace | undefined;
  /** Opens a passage; `highlight` is a term or character ranges to mark in it. */
  openPassage(chunkId: string, highlight?: PassageHighlight): void;
  navigate(route: string, params?: Record<string, string>): void;
}

export type PassageHighlight = { terms: string[] } | { ranges: Array<{ start: number; end: number }> };

export const AppContext = createContext<AppActions>({
  workspace: undefined,
  openPassage: () => undefined,
  navigate: () => undefined,
});

export function useApp(): AppActions {
  return useContext(AppContext);
}
