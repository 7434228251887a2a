package org.bayeux.server;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;

import javax.management.JMException;
import javax.management.ObjectName;

import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;

/**
 * Not a test: a measurement, run by hand, of the heap an idle session takes in the engine. It makes N sessions the
 * way clients do (handshake, first connect, one subscription to a channel they share, each over the engine's
 * transport SPI), lets go of the clients, and prints the heap used after a full collection, per session, against the
 * heap used before. Run it before and after a change to the session's shape, in the same way:
 *
 * <pre>
 * mvn -o -q -B -ntp -pl bayeux-server -am -DskipTests test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * cd bayeux-server &amp;&amp; java -XX:+UseSerialGC -Xmx1g \
 *     -cp target/test-classes:target/classes:$(cat target/cp.txt) org.bayeux.server.SessionHeapProbe 20000 3
 * </pre>
 *
 * <p>The first figure, heap per session, includes what the engine's maps spend to hold the sessions and the test
 * client's carrier each session keeps (its last one); it varies by about 100 bytes from round to round. The lines
 * after it, from the class histogram, are exact: the engine's objects made once per session.</p>
 * </pre>
 */
public final class SessionHeapProbe {
    private SessionHeapProbe() {
    }

    /** @param args the number of sessions (default 20,000) and of rounds (default 3) */
    public static void main(String[] args) {
        int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int round = 1; round <= rounds; round++) {
            // Sessions must outlive the measurement: nothing expires while it runs.
            try (EngineHarness engine = EngineHarness.start(config -> config.maxInterval(Duration.ofHours(1)))) {
                // One warm-up session, so that what every engine makes once is counted before.
                open(engine);
                long before = usedAfterGc(memory);
                for (int i = 0; i < sessions; i++) {
                    open(engine);
                }
                long after = usedAfterGc(memory);
                System.out.printf("round %d: %d sessions, %,d bytes per session (%d engine sessions)%n", round,
                        sessions, (after - before) / sessions, engine.server().getSessions().size());
                if (round == rounds) {
                    printSessionClasses(sessions);
                }
            }
        }
    }

    private static void open(EngineHarness engine) {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        client.subscribe("/probe/room");
    }

    /**
     * Prints the engine's own classes, and plain {@code Object}s (locks), with about one instance or more per session,
     * from the live class histogram: the exact shallow bytes the session's objects take, without the noise of the
     * maps that hold them.
     */
    private static void printSessionClasses(int sessions) {
        String histogram;
        try {
            histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
        } catch (JMException unavailable) {
            System.out.println("no class histogram: " + unavailable);
            return;
        }
        long total = 0;
        for (String line : histogram.split("\n")) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length < 4 || columns[3].contains(".test.")
                    || !(columns[3].startsWith("org.bayeux.") || columns[3].equals("java.lang.Object"))) {
                continue;
            }
            long instances = Long.parseLong(columns[1]);
            long bytes = Long.parseLong(columns[2]);
            if (instances >= sessions) {
                total += bytes;
                System.out.printf("  %-60s %8d instances %6.1f bytes per session%n", columns[3], instances,
                        (double) bytes / sessions);
            }
        }
        System.out.printf("  these objects, per session: %,d bytes%n", total / sessions);
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
