import { createRequire } from "node:module";
import type { Jieba, TfIdf } from "@node-rs/jieba";
import { JOB_TITLE_WORDS } from "./chinese-words.js";

interface ChineseTools {
  jieba: Jieba;
  tfIdf: TfIdf;
}

const require = createRequire(import.meta.url);
let jieba: Jieba | undefined;
/** The dictionary count of 执行官, a title jieba knows: the added titles are as common. */
const TITLE_WORD_FREQUENCY = 361;
let tfIdf: TfIdf | undefined;

/**
 * jieba with its default dictionary and the job titles it lacks, loaded on first use (about 0.25 s), so English-only runs
 * never pay for it.
 */
export function chineseSegmenter(): Jieba {
  if (!jieba) {
    const { Jieba: JiebaClass } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
    const { dict } = require("@node-rs/jieba/dict.js") as typeof import("@node-rs/jieba/dict.js");
    jieba = JiebaClass.withDict(dict);
    jieba.loadDict(
      Buffer.from(JOB_TITLE_WORDS.map((word) => `${word} ${TITLE_WORD_FREQUENCY} n`).join("\n")),
    );
  }
  return jieba;
}

/**
 * jieba and its IDF table (another 0.25 s): only the analysis of passages ranks keywords, so
 * matching a question against Chinese sentences loads the segmenter alone.
 */
export function chineseTools(): ChineseTools {
  if (!tfIdf) {
    const { TfIdf: TfIdfClass } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
    const { idf } = require("@node-rs/jieba/dict.js") as typeof import("@node-rs/jieba/dict.js");
    tfIdf = TfIdfClass.withDict(idf);
  }
  return { jieba: chineseSegmenter(), tfIdf };
}
