import { join, resolve } from "node:path";

/** The folder a workspace's uploaded files are kept in (light: the job process imports it). */
export function uploadFolderOf(workspace: string): string {
  return join(resolve(workspace), "server", "uploads");
}
