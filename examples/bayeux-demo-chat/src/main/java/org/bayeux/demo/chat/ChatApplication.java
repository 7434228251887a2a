package org.bayeux.demo.chat;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;
import org.bayeux.server.ext.AcknowledgedMessagesExtension;

/**
 * The demo chat as an application of the standalone server: {@code bin/bayeux demo} loads this module's jar with
 * {@code --classpath}, as the server loads any application's jar, and finds this class in the jar's
 * {@code META-INF/services}. Its page asks for the {@code ack} extension (no message lost across reconnections):
 * {@code bin/bayeux demo} gives {@code --extensions ack}, and on a host that did not install it the application adds
 * it itself. It asks nothing of the cluster but the engine's presence seam ({@link ApplicationContext#presence()}):
 * the same chat runs on one node, on an Oort mesh and on a Redis backplane, its member lists and private messages
 * spanning whatever nodes there are.
 */
public final class ChatApplication implements BayeuxApplication {
    private volatile ChatService chat;

    /** Created by {@link java.util.ServiceLoader}. */
    public ChatApplication() {
        // everything happens in start
    }

    @Override
    public void start(ApplicationContext context) {
        BayeuxServer server = context.server();
        if (server.getExtensions().stream().noneMatch(AcknowledgedMessagesExtension.class::isInstance)) {
            server.addExtension(new AcknowledgedMessagesExtension());
        }
        chat = new ChatService(server, context.presence());
    }

    /** @return the chat service, once started */
    public ChatService chat() {
        return chat;
    }
}
