import type { QueryMode } from "../options.js";
import { retrieveGlobal } from "./global.js";
import { retrieveHybrid } from "./hybrid.js";
import { retrieveLocal } from "./local.js";
import { retrieveMix } from "./mix.js";
import { retrieveNaive } from "./naive.js";
import type { Retrieval, RetrievalInput } from "./retrieval.js";

const RETRIEVERS: Record<QueryMode, (input: RetrievalInput) => Promise<Retrieval>> = {
  naive: retrieveNaive,
  local: retrieveLocal,
  global: retrieveGlobal,
  hybrid: retrieveHybrid,
  mix: retrieveMix,
};

export function retrieve(mode: QueryMode, input: RetrievalInput): Promise<Retrieval> {
  return RETRIEVERS[mode](input);
}
