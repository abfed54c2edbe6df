import type { Command } from "commander";

export interface BackupCommandOptions {
  out: string;
  workspace?: string;
  force?: boolean;
  json?: boolean;
}

export interface RestoreCommandOptions {
  workspace: string;
  force?: boolean;
  json?: boolean;
}

/** `kgrag backup --out FILE`: one file holding the SQLite workspace, copied online. */
export function registerBackupCommand(program: Command): void {
  program
    .command("backup")
    .description(
      "Copy the SQLite workspace into one file (safe while an index runs): database, config file, uploads",
    )
    .requiredOption("-o, --out <file>", "the backup file to write")
    .option("-w, --workspace <dir>", "workspace folder")
    .option("-f, --force", "replace an existing --out file")
    .option("--json", "print JSON")
    .action(async (opts: BackupCommandOptions) => (await import("../actions/backup.js")).backupAction(opts));
}

/** `kgrag restore FILE --workspace DIR`: a backup made by `kgrag backup`, into a new or empty folder. */
export function registerRestoreCommand(program: Command): void {
  program
    .command("restore")
    .description("Restore a kgrag backup into a workspace folder (new or empty, or replaced with --force)")
    .argument("<file>", "a file written by kgrag backup")
    .requiredOption("-w, --workspace <dir>", "the workspace folder to restore into")
    .option("-f, --force", "replace a folder that is not empty")
    .option("--json", "print JSON")
    .action(async (file: string, opts: RestoreCommandOptions) =>
      (await import("../actions/backup.js")).restoreAction(file, opts),
    );
}
