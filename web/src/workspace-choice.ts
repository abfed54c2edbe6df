/** The workspace shown, or the one the address asked for when this server does not offer it. */
export interface WorkspaceChoice {
  id: string | undefined;
  unavailable?: string;
}

/**
 * Which workspace to show: the one the address names (a shared link says which workspace it is
 * about), else the one picked last in this browser, else the first. One the address names that is
 * not among `available` (another server's, or one this API key may not use) is reported and none
 * is shown: the address's entity or community would otherwise be looked up in another workspace.
 */
export function chooseWorkspace(
  available: readonly string[],
  linked: string | undefined,
  saved: string | undefined,
): WorkspaceChoice {
  if (!linked) return { id: saved && available.includes(saved) ? saved : available[0] };
  if (available.includes(linked)) return { id: linked };
  return { id: undefined, unavailable: linked };
}
