import { openServices } from "../workspace/open-services.js";
import { noticeOfflineOnce } from "./offline-notice.js";
import type { OpenOptions, OpenServices } from "./open.js";
import { refuseMissingWorkspace } from "./open-store.js";
import { terminalProgress } from "./progress-bars.js";

/**
 * Opens a workspace's services for a command that only reads and answers (query): the same
 * settings, checks and offline notice as `cliOpener`, without the indexing pipelines it loads.
 */
export async function openCliServices(opts: OpenOptions): ReturnType<OpenServices> {
  if (!opts.create) refuseMissingWorkspace(opts.workspace);
  const services = await openServices({
    progress: terminalProgress(),
    config: {
      ...(opts.workspace ? { workspace: opts.workspace } : {}),
      ...(opts.exact ? { vectorIndex: { kind: "exact" as const } } : {}),
    },
  });
  if (opts.usesModel !== false) noticeOfflineOnce(services);
  return { services, close: () => services.store.close() };
}
