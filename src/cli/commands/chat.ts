import type { Command } from "commander";
import {
  type OpenForCypher,
  type TextToCypherCliOptions,
  wholeNumber,
  withTextToCypherOptions,
} from "./ask.js";

/**
 * `kgrag chat`: a conversation on the terminal. Each turn shows the Cypher, the rows and the answer;
 * follow-ups see earlier turns; theme and summary questions go to GraphRAG's global mode.
 */
export function registerChatCommand(program: Command, open: OpenForCypher): void {
  withTextToCypherOptions(
    program
      .command("chat")
      .description(
        "Chat with the Neo4j graph: questions answered by validated, read-only Cypher, shown each turn",
      )
      .option("--history <turns>", "earlier turns the model sees for follow-ups", wholeNumber, 3),
  ).action(async (opts: TextToCypherCliOptions & { history: number }) =>
    (await import("../actions/chat.js")).chatAction(open, opts),
  );
}
