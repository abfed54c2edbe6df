import { createRequire } from "node:module";
import type { Jieba, TfIdf } from "@node-rs/jieba";

interface ChineseTools {
  jieba: Jieba;
  tfIdf: TfIdf;
}

let tools: ChineseTools | undefined;

/**
 * jieba with its default dictionary and IDF table, loaded on first use (about 11 MB and 0.3 s),
 * so English-only runs never pay for them.
 */
export function chineseTools(): ChineseTools {
  if (!tools) {
    const require = createRequire(import.meta.url);
    const { Jieba: JiebaClass, TfIdf: TfIdfClass } =
      require("@node-rs/jieba") as typeof import("@node-rs/jieba");
    const { dict, idf } = require("@node-rs/jieba/dict.js") as typeof import("@node-rs/jieba/dict.js");
    tools = { jieba: JiebaClass.withDict(dict), tfIdf: TfIdfClass.withDict(idf) };
  }
  return tools;
}
