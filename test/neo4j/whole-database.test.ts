/**
 * The live Neo4j tests that compare the whole database's node and relationship counts before and
 * after a refused write, so no other test may write to their database meanwhile. The suite gives
 * them a server of their own (see test/neo4j-server/global-setup.ts) and runs them here, one after
 * another, beside the rest of the suite. Each file below is a test suite of its own.
 */
import "./whole-database/cypher-explore.js";
import "./whole-database/mcp-cypher.js";
import "./whole-database/text2cypher-movies.js";
