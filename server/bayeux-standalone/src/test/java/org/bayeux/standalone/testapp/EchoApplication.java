package org.bayeux.standalone.testapp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxService;
import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;

/**
 * An application as a team would write one: a service on {@code /service/echo} answering
 * {@code {"echo":data,"greeting":<the jar's greeting.txt>}}, using only bayeux-api and bayeux-server.
 */
public final class EchoApplication implements BayeuxApplication {
    /** The resource the jar carries beside the class, read through the context's class loader. */
    public static final String GREETING = "org/bayeux/standalone/testapp/greeting.txt";
    /** The line {@link #stop} prints. */
    public static final String STOPPED = "echo application stopped";

    @Override
    public void start(ApplicationContext context) throws IOException {
        String greeting;
        try (InputStream in = context.classLoader().getResourceAsStream(GREETING)) {
            greeting = in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
        new Echo(context.server(), greeting);
    }

    /** Says so on standard output, which the distribution's test reads after it sent SIGTERM. */
    @Override
    public void stop() {
        System.out.println(STOPPED);
        System.out.flush();
    }

    private static final class Echo extends BayeuxService {
        Echo(BayeuxServer server, String greeting) {
            super(server, "echo");
            addService("/service/echo", (remote, message) -> {
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("echo", message.getData());
                answer.put("greeting", greeting);
                return answer;
            });
        }
    }
}
