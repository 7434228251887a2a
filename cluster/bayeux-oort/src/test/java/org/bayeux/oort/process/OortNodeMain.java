package org.bayeux.oort.process;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.oort.Oort;
import org.bayeux.oort.OortStats;
import org.bayeux.server.BayeuxEngine;
import org.bayeux.server.cluster.ClusterListener;
import org.bayeux.server.cluster.ClusterMember;
import org.bayeux.transport.http.TransportConfig;
import org.bayeux.transport.jetty.BayeuxEndpoint;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * One Oort node in a JVM of its own, for process-level tests. Arguments ({@code --name value}):
 * {@code --port} (0: a free one), {@code --seeds URL,URL}, {@code --channels GLOB,GLOB}, {@code --secret-file FILE}
 * (without it the node refuses to start, as Oort does), {@code --heartbeat-ms}, {@code --timeout-ms},
 * {@code --print-joins true} (prints each incoming join's proof, so that a test can replay a real one),
 * {@code --advertise stdin} (prints {@value #BOUND}{@code port=P} once bound, then reads {@code url URL} on standard
 * input and advertises that URL, a proxy's in front of the port).
 *
 * <p>It reports on standard output, one line each, prefixed so that log lines in between do no harm:
 * {@value #READY}{@code port=P id=ID url=URL} once started; {@value #EVENT}{@code joined|left ID URL} for each
 * membership change; {@value #INCARNATION}{@code ID} when it takes a new incarnation; {@value #JOIN}{@code id=.. url=.. target=.. time=.. nonce=.. mac=..} for each join seen with
 * {@code --print-joins}. It answers commands on standard input with one {@value #REPLY} line: {@code stats},
 * {@code subscribers CHANNEL}, {@code members}. It stops when its standard input ends (so it does not outlive a test
 * JVM that died), and exits with 2, naming the key on standard error, when its configuration is refused.</p>
 */
public final class OortNodeMain {
    /** With {@code --advertise stdin}: the port is bound, the node waits for {@code url URL} on standard input. */
    public static final String BOUND = "OORT-BOUND ";
    /** The line telling the node is up. */
    public static final String READY = "OORT-NODE ";
    /** A membership change. */
    public static final String EVENT = "OORT-EVENT ";
    /** A join proof seen on the wire (with --print-joins). */
    public static final String JOIN = "OORT-JOIN ";
    /** An answer to a command. */
    public static final String REPLY = "OORT-REPLY ";
    /** The node took a new incarnation (a peer had declared its old one left). */
    public static final String INCARNATION = "OORT-INCARNATION ";
    /** The start of the standard error line when the configuration is refused. */
    public static final String REFUSED = "OORT-NODE-REFUSED ";

    private OortNodeMain() {
    }

    /**
     * @param args {@code --name value} pairs, see the class comment
     * @throws Exception if Jetty cannot start
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = parse(args);
        Server jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(Integer.parseInt(options.getOrDefault("port", "0")));
        jetty.addConnector(connector);
        connector.open();
        int port = connector.getLocalPort();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String url = "http://127.0.0.1:" + port + "/bayeux";
        if ("stdin".equals(options.get("advertise"))) {
            // The test puts a proxy in front of the port just bound, and tells the URL to advertise: the proxy's.
            say(BOUND + "port=" + port);
            String line = in.readLine();
            if (line == null || !line.startsWith("url ")) {
                System.err.println(REFUSED + "expected 'url URL' on standard input, got " + line);
                System.exit(2);
                return;
            }
            url = line.substring(4).trim();
        }
        BayeuxEngine engine = BayeuxEngine.create();
        BayeuxEndpoint.mount(jetty, "/bayeux", engine, TransportConfig.defaults());
        engine.addClusterListener(new ClusterListener() {
            @Override
            public void joined(ClusterMember member) {
                say(EVENT + "joined " + member.id() + " " + member.url());
            }

            @Override
            public void left(ClusterMember member) {
                say(EVENT + "left " + member.id() + " " + member.url());
            }
        });
        if (Boolean.parseBoolean(options.get("print-joins"))) {
            // Added before the engine starts, so before Oort's own check: it sees every proof, good or not.
            engine.addExtension(new JoinPrinter());
        }
        Oort oort;
        try {
            Oort.Builder builder = Oort.builder(engine).url(url).seeds(list(options.get("seeds")));
            if (options.containsKey("channels")) {
                builder.channels(list(options.get("channels")));
            }
            if (options.containsKey("secret-file")) {
                builder.secret(Files.readAllBytes(Path.of(options.get("secret-file"))));
            }
            if (options.containsKey("heartbeat-ms")) {
                builder.heartbeatInterval(Duration.ofMillis(Long.parseLong(options.get("heartbeat-ms"))));
            }
            if (options.containsKey("timeout-ms")) {
                builder.peerTimeout(Duration.ofMillis(Long.parseLong(options.get("timeout-ms"))));
            }
            oort = builder.build();
        } catch (IllegalArgumentException refused) {
            System.err.println(REFUSED + refused.getMessage());
            System.err.flush();
            connector.close();
            System.exit(2);
            return;
        }
        oort.addIncarnationListener(id -> say(INCARNATION + id));
        jetty.start();
        say(READY + "port=" + port + " id=" + oort.id() + " url=" + url);
        serveCommands(in, engine, oort);
        jetty.stop();
        System.exit(0);
    }

    /** Answers commands until standard input ends or says "stop". */
    private static void serveCommands(BufferedReader in, BayeuxEngine engine, Oort oort) throws Exception {
        for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
            String[] words = line.trim().split(" ");
            switch (words[0]) {
                case "stats" -> {
                    OortStats stats = oort.stats();
                    say(REPLY + "forwarded=" + stats.forwarded() + " forwardFailures=" + stats.forwardFailures()
                            + " received=" + stats.received() + " duplicates=" + stats.duplicates() + " gaps="
                            + stats.gaps() + " refusedJoins=" + stats.refusedJoins() + " joins=" + stats.joins()
                            + " leaves=" + stats.leaves() + " resent=" + stats.resent() + " incarnations="
                            + stats.incarnations());
                }
                case "subscribers" -> {
                    ServerChannel channel = words.length > 1 ? engine.getChannel(words[1]) : null;
                    say(REPLY + (channel == null ? 0 : channel.getSubscribers().size()));
                }
                case "members" -> say(REPLY + oort.members().stream().map(ClusterMember::id)
                        .collect(Collectors.joining(",")));
                default -> say(REPLY + "unknown command");
            }
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static List<String> list(String commaSeparated) {
        if (commaSeparated == null || commaSeparated.isBlank()) {
            return List.of();
        }
        return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("bad argument '" + args[i] + "': expected --name value");
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }

    /** Prints the proof of each incoming join (test only: a proof is single-use and holds no secret). */
    private static final class JoinPrinter implements ServerExtension {
        @Override
        public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
            Map<String, Object> ext = "/meta/handshake".equals(message.getChannel()) ? message.getExt() : null;
            if (ext != null && ext.get("oort") instanceof Map<?, ?> proof) {
                StringBuilder line = new StringBuilder(JOIN);
                for (String field : List.of("id", "url", "target", "time", "nonce", "mac")) {
                    line.append(field).append('=').append(proof.get(field)).append(' ');
                }
                say(line.toString().trim());
            }
            return true;
        }
    }
}
