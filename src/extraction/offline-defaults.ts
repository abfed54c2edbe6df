/**
 * The offline NLP extractor's defaults, in a module of their own so that the config schema
 * (`extraction.offline`) and the extractor, which also runs on a worker thread that never loads
 * the config, share them.
 */
export const OFFLINE_EXTRACTION_DEFAULTS = {
  maxEntitiesPerChunk: 40,
  maxRelationshipsPerChunk: 60,
  sentencesPerEntity: 2,
} as const;
