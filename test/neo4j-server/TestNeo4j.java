import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Starts a real Neo4j 5.26 (community, embedded) with Bolt on 127.0.0.1 for kgrag's tests.
 * Arguments: data folder, Bolt port, password. Prints "READY bolt://127.0.0.1:PORT" once Bolt
 * answers, and shuts down cleanly when its standard input closes (the parent went away, however it
 * ended) or on SIGTERM/SIGINT.
 */
public class TestNeo4j {
  public static void main(String[] args) throws IOException {
    if (args.length < 3 || args.length > 4) {
      System.err.println("usage: TestNeo4j DATA_DIR BOLT_PORT PASSWORD [PAGE_CACHE_MB]");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    int port = Integer.parseInt(args[1]);
    String password = args[2];
    long pageCacheMb = args.length == 4 ? Long.parseLong(args[3]) : 512;

    DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
        .setConfig(BoltConnector.enabled, true)
        .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
        .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
        .setConfig(HttpConnector.enabled, false)
        .setConfig(GraphDatabaseSettings.auth_enabled, true)
        .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
        .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(5))
        .build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown));

    // The initial password of the neo4j user is changed through the system database, as
    // `neo4j-admin dbms set-initial-password` does for a server.
    dbms.database("system").executeTransactionally(
        "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
        java.util.Map.of("password", password));

    System.out.println("READY bolt://127.0.0.1:" + port);
    System.out.flush();
    while (System.in.read() != -1) {
      // Keep running until the parent closes our standard input.
    }
    System.exit(0);
  }
}
