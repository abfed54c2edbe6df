import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { NEO4J_BACKUP_ADVICE } from "../../workspace/backup.js";
import type { ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { workspaceOf } from "../request-workspace.js";

/**
 * A download of the workspace as one backup file (what `kgrag backup` writes; `kgrag restore`
 * reads it). Safe while a job indexes: the copy is one snapshot of the database.
 */
export async function backupRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    "/api/v1/backup",
    {
      schema: {
        tags: ["workspace"],
        summary:
          "Download a backup of the workspace (SQLite only), to restore with `kgrag restore FILE --workspace DIR`",
        querystring: z.object({ workspace: z.string().optional() }),
      },
    },
    async (request, reply) => {
      const served = workspaceOf(request, ctx.registry);
      if (served.kgrag.services.store.kind !== "sqlite") {
        throw new ApiError(404, "sqlite_required", NEO4J_BACKUP_ADVICE);
      }
      const folder = await mkdtemp(join(tmpdir(), "kgrag-backup-download-"));
      const name = backupFileName(served.id);
      const file = join(folder, name);
      try {
        await served.kgrag.backup(file);
      } catch (error) {
        await rm(folder, { recursive: true, force: true });
        throw error;
      }
      const stream = createReadStream(file);
      // Removed once sent, or once the client hung up.
      stream.on("close", () => void rm(folder, { recursive: true, force: true }));
      return reply
        .header("content-disposition", `attachment; filename="${name}"`)
        .type("application/vnd.sqlite3")
        .send(stream);
    },
  );
}

/** `<workspace>-20261207-131500.kgrag-backup`, the id cut down to what any file system takes. */
function backupFileName(id: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${id.replace(/[^\w.-]+/g, "_")}-${stamp}.kgrag-backup`;
}
