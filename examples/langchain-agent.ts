/**
 * kgrag inside a LangChain.js agent, offline: LangChain documents are indexed, a retriever returns
 * cited passages, and an agent built with `createAgent` asks kgrag through its tool.
 *
 *   npx tsx examples/langchain-agent.ts [workspace-folder]
 *
 * The chat model is scripted (`fakeModel` from langchain's testing helpers) so the example runs
 * without a key: it calls the kgrag tool, then answers from what the tool returned. Swap in any
 * tool-calling model, e.g. `new ChatOpenAI({ model: "gpt-4o-mini" })` from @langchain/openai.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Document } from "@langchain/core/documents";
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage, createAgent, fakeModel, HumanMessage, ToolMessage } from "langchain";
import { createKgrag, createKgragTool, KgragRetriever } from "../src/index.js";

/** What a document loader (TextLoader, PDFLoader, a web loader...) would hand over. */
const LOADED = [
  new Document({
    pageContent:
      "Lumen Robotics was founded by Mara Okafor in Lisbon in 2015. It builds harbour inspection drones.",
    metadata: { source: "notes/lumen.txt" },
  }),
  new Document({
    pageContent: "Tidewell Harbour bought twelve drones from Lumen Robotics in 2021.",
    metadata: { source: "notes/tidewell.txt" },
  }),
];

export interface ExampleRun {
  retrieved: Document[];
  toolCalls: number;
  finalAnswer: string;
}

export async function runLangChainExample(workspace: string, question: string): Promise<ExampleRun> {
  const kgrag = await createKgrag({ env: {}, config: { workspace } });
  try {
    await kgrag.index(LOADED);
    const retriever = new KgragRetriever({ kgrag, mode: "mix" });
    const retrieved = await retriever.invoke(question);

    const model = fakeModel()
      .respondWithTools([{ name: "kgrag_query", args: { question, mode: "mix" } }])
      .respond((messages: BaseMessage[]) => answerFromToolResult(messages));
    const agent = createAgent({ model, tools: [createKgragTool({ kgrag })] });
    const state = await agent.invoke({ messages: [new HumanMessage(question)] });
    const last = state.messages.at(-1);
    return {
      retrieved,
      toolCalls: state.messages.filter((m) => ToolMessage.isInstance(m)).length,
      finalAnswer: typeof last?.content === "string" ? last.content : "",
    };
  } finally {
    await kgrag.close();
  }
}

/** The scripted model's second turn: the tool's answer, with the titles of its first sources. */
function answerFromToolResult(messages: BaseMessage[]): AIMessage {
  const toolMessage = messages.findLast((m) => ToolMessage.isInstance(m));
  const result = JSON.parse(String(toolMessage?.content ?? "{}")) as {
    answer?: string;
    sources?: { n: number; title: string }[];
  };
  const cited = (result.sources ?? []).slice(0, 2).map((s) => `[${s.n}] ${s.title}`);
  return new AIMessage(`${result.answer ?? "kgrag found nothing."}\nSources: ${cited.join("; ")}`);
}

async function main(): Promise<void> {
  const workspace = process.argv[2] ?? (await mkdtemp(join(tmpdir(), "kgrag-langchain-")));
  const run = await runLangChainExample(workspace, "Who founded Lumen Robotics?");
  console.log("Retriever:");
  for (const doc of run.retrieved) {
    const m = doc.metadata;
    console.log(
      `  [${m.citation}] ${m.title} (${m.docId}, chars ${m.start}-${m.end}, score ${m.score.toFixed(3)})`,
    );
  }
  console.log(`\nAgent (${run.toolCalls} kgrag tool call):\n${run.finalAnswer}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
