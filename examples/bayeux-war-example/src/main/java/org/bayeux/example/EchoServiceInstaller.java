package org.bayeux.example;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextAttributeEvent;
import jakarta.servlet.ServletContextAttributeListener;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.BayeuxService;
import org.bayeux.transport.servlet.BayeuxServlet;

/**
 * Adds an echo service on {@code /service/echo} as soon as the Bayeux servlet publishes its engine: the way an
 * application configures the engine inside a container.
 */
public class EchoServiceInstaller implements ServletContextAttributeListener {
    @Override
    public void attributeAdded(ServletContextAttributeEvent event) {
        if (BayeuxServlet.ATTRIBUTE.equals(event.getName())) {
            new EchoService((BayeuxServer) event.getValue());
            ServletContext context = event.getServletContext();
            context.log("Echo service installed on /service/echo");
        }
    }

    /** Answers each request with its own data. */
    static final class EchoService extends BayeuxService {
        EchoService(BayeuxServer server) {
            super(server, "echo");
            addService("/service/echo", (requester, request) -> request.getData());
        }
    }
}
