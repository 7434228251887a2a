package org.bayeux.standalone.demo;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.backplane.redis.RedisBackplane;
import org.bayeux.oort.Oort;
import org.bayeux.oort.Seti;
import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;

/**
 * The demo chat as an application of the standalone server ({@code --demo} asks for it by name; it is listed in this
 * module's {@code META-INF/services} like any application's jar lists its own). On an Oort node (the host offers
 * {@link Oort}) its member lists and private messages span the nodes through {@link Seti}; on a Redis backplane (the
 * host offers {@link RedisBackplane}) through {@link BackplaneChat}'s rosters; alone, it is one node's chat.
 */
public final class ChatApplication implements BayeuxApplication {
    private volatile ChatService chat;
    private volatile BackplaneChat backplaneChat;

    /** Created by {@link java.util.ServiceLoader}. */
    public ChatApplication() {
        // everything happens in start
    }

    @Override
    public void start(ApplicationContext context) {
        BayeuxServer server = context.server();
        Oort oort = context.component(Oort.class).orElse(null);
        if (oort != null) {
            chat = new ChatService(server, new SetiChat(new Seti(oort)));
        } else if (context.component(RedisBackplane.class).isPresent()) {
            backplaneChat = new BackplaneChat(server);
            chat = new ChatService(server, backplaneChat);
        } else {
            chat = new ChatService(server);
        }
    }

    /** First thing when the server stops, while the backplane still runs: the other nodes drop this node's members. */
    @Override
    public void stop() {
        if (backplaneChat != null) {
            backplaneChat.close();
        }
    }

    /** @return the chat service, once started */
    public ChatService chat() {
        return chat;
    }

    /** @return the chat's part on the backplane, or null when not on one */
    public BackplaneChat backplaneChat() {
        return backplaneChat;
    }
}
