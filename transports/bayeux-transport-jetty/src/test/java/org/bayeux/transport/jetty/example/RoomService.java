package org.bayeux.transport.jetty.example;

import java.util.List;
import java.util.stream.Collectors;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.server.BayeuxService;

/** The service of operations.md's {@link ChatApp}: {@code /service/rooms} answers the names of the rooms. */
public final class RoomService extends BayeuxService {
    public RoomService(BayeuxServer server) {
        super(server, "rooms");
        addService("/service/rooms", (requester, request) -> rooms());
    }

    private List<String> rooms() {
        return getServer().getChannels().stream().map(ServerChannel::getId)
                .filter(id -> id.startsWith("/rooms/") && !id.endsWith("*")).sorted().collect(Collectors.toList());
    }
}
