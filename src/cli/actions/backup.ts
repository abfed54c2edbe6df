import { loadConfig } from "../../config.js";
import {
  BackupError,
  backupWorkspace,
  NEO4J_BACKUP_ADVICE,
  restoreWorkspace,
} from "../../workspace/backup.js";
import type { BackupCommandOptions, RestoreCommandOptions } from "../commands/backup.js";
import { checkOutPath } from "../output-path.js";
import { printJson } from "../print-json.js";

/** `kgrag backup`: the configured workspace (flag, env, config file) into one file. */
export async function backupAction(opts: BackupCommandOptions): Promise<void> {
  const { config, file: configFile } = loadConfig(
    process.env,
    opts.workspace ? { workspace: opts.workspace } : {},
  );
  if (config.storage !== "sqlite") throw new BackupError(NEO4J_BACKUP_ADVICE);
  checkOutPath(opts.out, "file", opts.force ?? false);
  const summary = await backupWorkspace(
    config.workspace,
    opts.out,
    { force: opts.force ?? false },
    configFile,
  );
  if (opts.json) return printJson(summary);
  const files =
    summary.files.length > 0 ? ` and ${summary.files.length} file(s): ${summary.files.join(", ")}` : "";
  const secrets =
    summary.secretsLeftOut.length > 0
      ? ` Left out of its config file: ${summary.secretsLeftOut.join(", ")} (set them again after a restore).`
      : "";
  process.stdout.write(
    `Backed up ${config.workspace} (schema ${summary.schemaVersion}${files}) to ${summary.file}, ${summary.bytes} bytes.${secrets}\n`,
  );
}

/** `kgrag restore FILE --workspace DIR`. */
export async function restoreAction(file: string, opts: RestoreCommandOptions): Promise<void> {
  const summary = await restoreWorkspace(file, opts.workspace, { force: opts.force ?? false });
  if (opts.json) return printJson(summary);
  process.stdout.write(
    `Restored the backup of ${summary.createdAt} into ${summary.workspace} (schema ${summary.schemaVersion}). ` +
      "The vector index files are rebuilt by the next write; until then queries score vectors exactly.\n",
  );
}
