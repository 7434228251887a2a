package org.bayeux.standalone.demo;

import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;

/**
 * The demo chat as an application of the standalone server. It asks nothing of the cluster but the engine's presence
 * seam ({@link ApplicationContext#presence()}): the same chat runs on one node, on an Oort mesh and on a Redis
 * backplane, its member lists and private messages spanning whatever nodes there are.
 */
public final class ChatApplication implements BayeuxApplication {
    private volatile ChatService chat;

    /** Created by {@link java.util.ServiceLoader}. */
    public ChatApplication() {
        // everything happens in start
    }

    @Override
    public void start(ApplicationContext context) {
        chat = new ChatService(context.server(), context.presence());
    }

    /** @return the chat service, once started */
    public ChatService chat() {
        return chat;
    }
}
