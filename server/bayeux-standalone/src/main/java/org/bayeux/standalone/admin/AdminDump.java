package org.bayeux.standalone.admin;

import java.util.Map;
import java.util.function.Supplier;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Promise;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.ChannelMessageListener;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;

/**
 * The engine's text dump ({@code BayeuxEngine.dump()}) on request, for admin sessions only: an admin session publishes
 * anything to {@value AdminConsole#DUMP_CHANNEL} and gets back, on that channel, {@code {"dump": "..."}}. Any other
 * session's publish is refused ({@code 403:admin_only:publish_denied}). The dump holds counts and channel names
 * only, so it may be shown on the page; it is built only when asked, never on the statistics' tick.
 */
final class AdminDump implements ChannelMessageListener, Authorizer {
    private final Supplier<String> dump;

    /**
     * @param dump makes the engine's dump
     */
    AdminDump(Supplier<String> dump) {
        this.dump = dump;
    }

    @Override
    public Result authorize(Operation operation, ChannelId channel, ServerSession session, ServerMessage message) {
        return AdminAccess.isAdmin(session) ? Result.grant() : Result.deny(AdminAccess.NOT_ADMIN);
    }

    @Override
    public boolean onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message) {
        if (sender != null && AdminAccess.isAdmin(sender)) {
            sender.deliver(null, channel.getId(), Map.of("dump", dump.get()), Promise.noop());
        }
        // A service channel: the request reaches no subscriber, and going on answers the publish as successful.
        return true;
    }
}
