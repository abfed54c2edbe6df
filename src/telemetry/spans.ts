import { type Attributes, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

/**
 * kgrag's spans go through @opentelemetry/api only: without a tracer provider registered by the
 * application (NodeSDK, a Langfuse or Jaeger exporter...) every span is a no-op.
 */
export const TRACER_NAME = "kgrag";

/** Span names, one place to read what a trace of kgrag holds. */
export const SPANS = {
  index: "kgrag.index",
  indexStage: (stage: string) => `kgrag.index.${stage}`,
  chat: "kgrag.llm.chat",
  query: "kgrag.query",
  queryStep: (step: string) => `kgrag.query.${step}`,
} as const;

/** Runs `work` in an active span (children nest under it), recording a failure as the span's error. */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
      throw error;
    } finally {
      span.end();
    }
  });
}
