// Preloaded (`node --import`) into a CLI child process: registers an OpenTelemetry tracer
// provider through the application's own @opentelemetry/api, the way a user traces the CLI, and
// appends the name of every ended span to the file named by SPAN_NAMES_FILE.
import { appendFileSync } from "node:fs";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";

const file = process.env.SPAN_NAMES_FILE;
const exporter = {
  export(spans, done) {
    for (const span of spans) appendFileSync(file, `${span.name}\n`);
    done({ code: 0 });
  },
  shutdown: async () => {},
};
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);
