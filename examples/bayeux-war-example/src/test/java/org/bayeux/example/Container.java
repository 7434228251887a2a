package org.bayeux.example;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.catalina.Context;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.ee10.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** A servlet container, embedded, into which a test deploys the example WAR at {@code /app}. */
interface Container extends AutoCloseable {
    /** @return the port it listens on, on 127.0.0.1 */
    int port();

    /**
     * @param name "jetty" or "tomcat"
     * @param war the WAR file
     * @return the started container with the WAR deployed
     */
    static Container start(String name, Path war) throws Exception {
        if (!Files.isRegularFile(war)) {
            throw new IllegalStateException("No WAR at " + war + "; run the tests with `mvn verify`");
        }
        return "jetty".equals(name) ? new JettyContainer(war) : new TomcatContainer(war);
    }

    /** Jetty 12 with the ee10 (Servlet 6.0) environment and its Jakarta WebSocket server. */
    final class JettyContainer implements Container {
        private final Server server = new Server();
        private final ServerConnector connector = new ServerConnector(server);

        JettyContainer(Path war) throws Exception {
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            WebAppContext webapp = new WebAppContext();
            webapp.setContextPath("/app");
            webapp.setWar(war.toString());
            // Tomcat's WebSocket SCI is on the same test class path: only Jetty's may run here.
            webapp.setAttribute("org.eclipse.jetty.containerInitializerExclusionPattern", "org\\.apache\\..*");
            // Publishes the ServerContainer in the context before the application's servlets start.
            JakartaWebSocketServletContainerInitializer.configure(webapp, null);
            server.setHandler(webapp);
            server.start();
            if (!webapp.isAvailable()) {
                throw new IllegalStateException("The WAR failed to deploy in Jetty", webapp.getUnavailableException());
            }
        }

        @Override
        public int port() {
            return connector.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            server.stop();
        }
    }

    /** Tomcat 11 (Servlet 6.1), embedded; tomcat-embed-websocket on the class path brings its WebSocket SCI. */
    final class TomcatContainer implements Container {
        private final Tomcat tomcat = new Tomcat();
        private final Path base;

        TomcatContainer(Path war) throws Exception {
            base = Files.createTempDirectory("tomcat");
            tomcat.setBaseDir(base.toString());
            tomcat.setHostname("127.0.0.1");
            tomcat.setPort(0);
            tomcat.getConnector().setProperty("address", "127.0.0.1");
            // No default web.xml: it would add Tomcat's JSP servlet, which this test does not ship.
            tomcat.setAddDefaultWebXmlToWebapp(false);
            Context context = tomcat.addWebapp("/app", war.toAbsolutePath().toString());
            // Jetty's WebSocket SCI is on the same test class path: only Tomcat's may run here.
            ((StandardContext) context).setContainerSciFilter("org\\.eclipse\\.jetty\\..*");
            tomcat.start();
        }

        @Override
        public int port() {
            return tomcat.getConnector().getLocalPort();
        }

        @Override
        public void close() throws Exception {
            tomcat.stop();
            tomcat.destroy();
            try (var files = Files.walk(base)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
