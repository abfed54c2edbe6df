/**
 * `npm run neo4j:test-server`: starts the suite's Neo4j by hand, prints how to reach it, and runs
 * until Ctrl-C. Data lives in a temporary folder and is removed when it stops.
 */
import { missingTools, startTestNeo4j } from "./test-neo4j.js";

const missing = await missingTools();
if (missing) {
  console.error(`Cannot start the test Neo4j: ${missing}.`);
  process.exit(2);
}
const server = await startTestNeo4j((line) => console.error(line));
console.log(`Neo4j ${server.version} is running (data is temporary, removed on exit).`);
console.log(
  `export KGRAG_STORAGE=neo4j NEO4J_URI=${server.uri} NEO4J_USERNAME=${server.username} NEO4J_PASSWORD=${server.password}`,
);
console.log("Press Ctrl-C to stop it.");
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
