/**
 * Rate limits: chat calls through a scripted server on 127.0.0.1 that enforces 60 requests in any
 * sliding minute (429 with Retry-After beyond it), with requestsPerMinute 60 configured.
 * Reports failed calls, 429s and the throughput in requests per minute.
 * Run: npx tsx bench/rate-limit.ts (BENCH_CALLS=90 by default: about a minute and a half).
 */
import { OpenAIChatModel } from "../src/llm/openai-chat.js";
import { rateLimitedChat } from "../test/support/rate-limited-chat.js";
import { startScriptedOpenAI } from "../test/support/scripted-openai-server.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 90);
const LIMIT_PER_MINUTE = 60;

const limited = rateLimitedChat(LIMIT_PER_MINUTE, 60_000);
const server = await startScriptedOpenAI({ chat: limited.handler, latencyMs: 50 });
const chat = new OpenAIChatModel({
  baseURL: server.baseURL,
  model: "bench",
  concurrency: 8,
  timeoutMs: 30_000,
  maxRetries: 10,
  requestsPerMinute: LIMIT_PER_MINUTE,
});

const outcomes = await Promise.allSettled(
  Array.from({ length: CALLS }, (_, i) =>
    chat.chat({ stage: "answer", messages: [{ role: "user", content: `question ${i}` }] }),
  ),
);
await server.close();

const failed = outcomes.filter((o) => o.status === "rejected").length;
const first = limited.log.accepted[0] ?? 0;
const last = limited.log.accepted.at(-1) ?? 0;
// Calls after the first over the time they took: the steady rate, not counting the first call's start-up.
const perMinute = ((limited.log.accepted.length - 1) / (last - first)) * 60_000;
console.log(
  JSON.stringify({
    calls: CALLS,
    failed,
    refused429: limited.log.refused.length,
    accepted: limited.log.accepted.length,
    seconds: Number(((last - first) / 1000).toFixed(1)),
    requestsPerMinute: Number(perMinute.toFixed(1)),
    limit: LIMIT_PER_MINUTE,
    shareOfLimit: Number((perMinute / LIMIT_PER_MINUTE).toFixed(3)),
  }),
);
