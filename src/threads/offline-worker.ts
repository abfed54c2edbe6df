import { parentPort } from "node:worker_threads";
import { clusterGraphHierarchy } from "../community/cluster.js";
import { ExtractiveReportBook } from "../community/extractive-reports.js";
import type { OfflineExtractionConfig } from "../config.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { OfflineNlpExtractor } from "../extraction/offline-extractor.js";
import type { FromBuiltInWorker, ToBuiltInWorker } from "./messages.js";

/**
 * The worker thread of the offline built-ins (started by BuiltInThread): NLP extraction, hashing
 * embedding, clustering and offline reports are pure CPU work, so an index run does them here while
 * the main thread merges, stores, summarises and writes vectors, and both cores are used. Requests
 * are answered in the order they came.
 */
const port = parentPort;
if (!port) throw new Error("offline-worker runs as a worker thread of kgrag");
// Made on the first extraction with its settings: a thread started to cluster never extracts.
const extractors = new Map<string, OfflineNlpExtractor>();
function nlpExtractor(options: OfflineExtractionConfig): OfflineNlpExtractor {
  const key = JSON.stringify(options);
  let extractor = extractors.get(key);
  if (!extractor) {
    extractor = new OfflineNlpExtractor(options);
    extractors.set(key, extractor);
  }
  return extractor;
}
const embedders = new Map<number, HashingEmbedder>();
// The graph and hierarchy of the reports being written (one run per thread at a time).
let reports: ExtractiveReportBook | undefined;

function embedderOf(dimension: number): HashingEmbedder {
  let embedder = embedders.get(dimension);
  if (!embedder) {
    embedder = new HashingEmbedder(dimension);
    embedders.set(dimension, embedder);
  }
  return embedder;
}

function answer(request: ToBuiltInWorker): FromBuiltInWorker {
  if (request.kind === "cluster") {
    return {
      id: request.id,
      kind: "cluster",
      clustering: clusterGraphHierarchy(request.graph, request.options),
    };
  }
  if (request.kind === "open reports") {
    reports = new ExtractiveReportBook(request.input);
    return { id: request.id, kind: "open reports" };
  }
  if (request.kind === "write reports") {
    if (!reports) throw new Error("reports asked for before their graph was sent");
    return { id: request.id, kind: "write reports", reports: reports.write(request.ids) };
  }
  if (request.kind === "extract") {
    return {
      id: request.id,
      kind: "extract",
      extraction: nlpExtractor(request.options).extractText(
        request.text,
        request.title,
        request.startsInside,
      ),
    };
  }
  const embedder = embedderOf(request.dimension);
  const vectors = new Float64Array(request.texts.length * request.dimension);
  request.texts.forEach((text, row) => {
    embedder.embedInto(text, vectors, row * request.dimension);
  });
  return { id: request.id, kind: "embed", vectors };
}

port.on("message", (request: ToBuiltInWorker) => {
  let reply: FromBuiltInWorker;
  try {
    reply = answer(request);
  } catch (error) {
    reply = {
      id: request.id,
      kind: "error",
      message: error instanceof Error ? error.message : String(error),
    };
  }
  port.postMessage(reply, reply.kind === "embed" ? [reply.vectors.buffer as ArrayBuffer] : []);
});
