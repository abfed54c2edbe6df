import { inProcessClusterer } from "../community/cluster.js";
import { reportWriterFor } from "../community/report-writer.js";
import { LlmExtractor } from "../extraction/llm-extractor.js";
import { LlmDescriptionSummarizer } from "../merge/llm-summarizer.js";
import type { IndexComponents } from "../pipeline/index-workflow.js";
import type { KgragServices } from "../services.js";
import { BuiltInThread } from "../threads/built-in-thread.js";
import {
  sharedBuiltInThread,
  ThreadedClusterer,
  ThreadedNlpExtractor,
  ThreadedReportsHost,
} from "../threads/threaded-built-ins.js";

/**
 * With a chat model every stage asks it; without one each stage uses its offline built-in. The
 * offline modules load only then: through their markdown reader (marked) they would add to a model
 * run's start-up before its first request.
 */
export async function createComponents(services: KgragServices): Promise<IndexComponents> {
  const { chat, config } = services;
  const reportWriter = reportWriterFor(services);
  const threaded = config.builtInThread.enabled;
  const clusterer = threaded
    ? new ThreadedClusterer(new BuiltInThread(0), config.builtInThread)
    : inProcessClusterer;
  if (chat) {
    return {
      clusterer,
      extractor: new LlmExtractor(chat, config.extraction),
      summarizer: new LlmDescriptionSummarizer(chat, {
        ...config.merge,
        language: config.extraction.language,
      }),
      reportWriter,
    };
  }
  const [{ OfflineNlpExtractor }, { ExtractiveSummarizer }] = await Promise.all([
    import("../extraction/offline-extractor.js"),
    import("../merge/extractive-summarizer.js"),
  ]);
  return {
    clusterer,
    extractor: threaded
      ? new ThreadedNlpExtractor(
          sharedBuiltInThread(config.builtInThread),
          config.builtInThread,
          config.extraction.offline,
          // Loaded already: the first chunks are extracted in-process at once, ahead of the thread's.
          new OfflineNlpExtractor(config.extraction.offline),
        )
      : new OfflineNlpExtractor(config.extraction.offline),
    summarizer: new ExtractiveSummarizer(config.merge),
    reportWriter,
    reportsOffThread: threaded ? new ThreadedReportsHost(config.builtInThread) : undefined,
  };
}
