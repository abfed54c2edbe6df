import type { CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager";
import { Document } from "@langchain/core/documents";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import type { Kgrag } from "../../kgrag.js";
import type { QueryMode } from "../../query/mode-names.js";
import { type AgentSource, queryForAgents } from "../query-for-agents.js";

/** What each retrieved Document's metadata carries: enough to cite the passage and find it again. */
export interface KgragDocumentMetadata {
  docId: string;
  chunkId: string;
  title: string;
  /** Character span [start, end) of the passage in its document. */
  start: number;
  end: number;
  score: number;
  /** The passage's number [n] in kgrag's own answer for the same query. */
  citation: number;
  /** 1-based page of a PDF passage. */
  page?: number;
}

export interface KgragRetrieverInput extends BaseRetrieverInput {
  kgrag: Pick<Kgrag, "query">;
  /** Retrieval mode (default mix). */
  mode?: QueryMode;
  /** Only these documents. */
  docIds?: string[];
  /** Only documents whose metadata has all these key=value pairs. */
  filter?: Record<string, string>;
}

/**
 * kgrag as a LangChain.js retriever: the passages a query in the chosen mode would cite, best
 * first, without writing an answer (no chat model call).
 */
export class KgragRetriever extends BaseRetriever<KgragDocumentMetadata> {
  static override lc_name(): string {
    return "KgragRetriever";
  }
  lc_namespace = ["kgrag", "retrievers"];
  private readonly kgrag: Pick<Kgrag, "query">;
  readonly mode: QueryMode;
  private readonly docIds: string[] | undefined;
  private readonly filter: Record<string, string> | undefined;

  constructor(fields: KgragRetrieverInput) {
    super(fields);
    this.kgrag = fields.kgrag;
    this.mode = fields.mode ?? "mix";
    this.docIds = fields.docIds;
    this.filter = fields.filter;
  }

  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document<KgragDocumentMetadata>[]> {
    const { sources } = await queryForAgents(this.kgrag, query, {
      mode: this.mode,
      docIds: this.docIds,
      metadata: this.filter,
      contextOnly: true,
    });
    return sources.map(toDocument);
  }
}

function toDocument(source: AgentSource): Document<KgragDocumentMetadata> {
  const metadata: KgragDocumentMetadata = {
    docId: source.docId,
    chunkId: source.chunkId,
    title: source.title,
    start: source.start,
    end: source.end,
    score: source.score,
    citation: source.n,
    ...(source.page === undefined ? {} : { page: source.page }),
  };
  return new Document({ id: source.chunkId, pageContent: source.text, metadata });
}
