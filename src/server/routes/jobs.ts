import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { ServerContext } from "../context.js";
import { notFound } from "../errors.js";
import type { Job } from "../jobs/job-types.js";
import { workspaceOf } from "../request-workspace.js";
import { openEventStream } from "../sse.js";

const IdParamsSchema = z.object({ id: z.string().min(1) });

const isFinished = (job: Job) => job.status !== "queued" && job.status !== "running";

export async function jobRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    "/api/v1/jobs",
    { schema: { tags: ["jobs"], summary: "Recent jobs, most recent first" } },
    async (request) => ({
      items: workspaceOf(request, ctx.registry).jobs.list(),
    }),
  );

  api.get(
    "/api/v1/jobs/:id",
    {
      schema: { tags: ["jobs"], summary: "One job: status, stage, progress, errors", params: IdParamsSchema },
    },
    async (request) => {
      const job = workspaceOf(request, ctx.registry).jobs.get(request.params.id);
      if (!job) throw notFound(`Job ${request.params.id}`);
      return job;
    },
  );

  api.get(
    "/api/v1/jobs/:id/events",
    {
      schema: {
        tags: ["jobs"],
        summary: "Server-sent events: `progress` (the job) on every change, then `end` (the job)",
        params: IdParamsSchema,
      },
    },
    async (request, reply) => {
      const jobs = workspaceOf(request, ctx.registry).jobs;
      const job = jobs.get(request.params.id);
      if (!job) throw notFound(`Job ${request.params.id}`);
      const stream = openEventStream(reply);
      stream.send("progress", job);
      if (isFinished(job)) {
        stream.send("end", job);
        stream.end();
        return;
      }
      // The job goes on whether or not the client stays: only the subscription ends with it.
      const unsubscribe = jobs.subscribe(job.id, (changed) => {
        stream.send("progress", changed);
        if (!isFinished(changed)) return;
        stream.send("end", changed);
        stream.end();
        unsubscribe();
      });
      reply.raw.on("close", unsubscribe);
    },
  );
}
