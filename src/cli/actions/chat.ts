import { createInterface } from "node:readline";
import { type ChatTurn, CypherChatSession, type RagAnswer } from "../../cypher/chat-session.js";
import type { OpenForCypher, TextToCypherCliOptions } from "../commands/ask.js";
import { formatTextToCypher, openTextToCypher } from "./ask.js";

/** `kgrag chat`: a conversation on the terminal until "exit", "quit" or the end of input. */
export async function chatAction(
  open: OpenForCypher,
  opts: TextToCypherCliOptions & { history: number },
): Promise<void> {
  const { deps, settings, opened } = await openTextToCypher(open, opts, "chat");
  const query = opened.query;
  const ragAnswer: RagAnswer | undefined = query
    ? async (question) => (await query(question, { mode: "global" })).answer ?? "(no answer)"
    : undefined;
  const session = new CypherChatSession({ ...deps, ragAnswer }, { ...settings, historyTurns: opts.history });
  try {
    await converse(session, opts.maxRows);
  } finally {
    await opened.close();
  }
}

/** Reads questions line by line until "exit", "quit" or end of input (Ctrl-D). */
async function converse(session: CypherChatSession, maxRows: number): Promise<void> {
  const terminal = Boolean(process.stdin.isTTY);
  const lines = createInterface({ input: process.stdin, output: process.stdout, terminal });
  if (terminal) {
    process.stdout.write('Ask about the graph; "exit" or Ctrl-D to leave.\n');
    lines.setPrompt("you> ");
    lines.prompt();
  }
  for await (const line of lines) {
    const question = line.trim();
    if (question === "exit" || question === "quit") break;
    if (question) {
      try {
        process.stdout.write(`${formatTurn(await session.ask(question), maxRows)}\n\n`);
      } catch (error) {
        process.stderr.write(`kgrag: ${(error as Error).message}\n`);
      }
    }
    if (terminal) lines.prompt();
  }
  lines.close();
}

export function formatTurn(turn: ChatTurn, maxRows: number): string {
  if (turn.route === "rag") return turn.answer;
  return turn.cypherResult ? formatTextToCypher(turn.cypherResult, maxRows) : turn.answer;
}
