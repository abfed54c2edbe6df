/** The graph export formats, apart from the writers so that the CLI's help can list them. */
export const EXPORT_FORMATS = ["graphml", "gexf", "json", "neo4j-csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
