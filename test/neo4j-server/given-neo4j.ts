/**
 * What the global setup hands to the workers about a test Neo4j it started: where it is, and the
 * file it writes once the server answers (or could not start).
 */
export interface GivenNeo4j {
  uri: string;
  username: string;
  password: string;
  readyFile: string;
}

/**
 * The vitest project of the tests that compare the whole database's node and relationship counts
 * before and after a refused write: no other test may write to their database meanwhile.
 */
export const WHOLE_DATABASE_PROJECT = "whole-database";

/** Their file, which runs the three suites of test/neo4j/whole-database/ one after another. */
export const WHOLE_DATABASE_FILE = "test/neo4j/whole-database.test.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The whole-database tests' own server, when the suite started one for them. */
    wholeDatabaseNeo4j?: GivenNeo4j;
  }
}
