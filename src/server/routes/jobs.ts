import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { ServerContext } from "../context.js";
import { notFound } from "../errors.js";
import type { Job } from "../jobs/job-types.js";
import { workspaceOf } from "../request-workspace.js";
import { type EventStream, openEventStream } from "../sse.js";

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
        summary: "Server-sent events: `progress` (the job) on every change, then `end` (the finished job)",
        params: IdParamsSchema,
      },
    },
    async (request, reply) => {
      const jobs = workspaceOf(request, ctx.registry).jobs;
      const job = jobs.get(request.params.id);
      if (!job) throw notFound(`Job ${request.params.id}`);
      const send = jobEventSender(openEventStream(reply));
      if (send(job)) return;
      // The job goes on whether or not the client stays: only the subscription ends with it.
      const unsubscribe = jobs.subscribe(job.id, (changed) => {
        if (send(changed)) unsubscribe();
      });
      reply.raw.on("close", unsubscribe);
    },
  );
}

/**
 * Sends a job's states on `stream`: a `progress` event only when the job differs from the last one
 * sent (a job process reports the same count again, a stage repeats), and the finished job once,
 * as `end`, which closes the stream. Returns whether the stream ended.
 */
function jobEventSender(stream: EventStream): (job: Job) => boolean {
  let lastSent = "";
  return (job) => {
    if (isFinished(job)) {
      stream.send("end", job);
      stream.end();
      return true;
    }
    const payload = JSON.stringify(job);
    if (payload !== lastSent) stream.send("progress", job);
    lastSent = payload;
    return false;
  };
}
