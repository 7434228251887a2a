package org.bayeux.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.bayeux.client.transport.ClientTransport;
import org.bayeux.client.transport.LongPollingTransport;
import org.bayeux.client.transport.TransportContext;
import org.bayeux.client.transport.WebSocketTransport;

/**
 * The transports a client may use, in its order of preference, and which of them turned out to be unavailable.
 */
final class Transports {
    private final List<ClientTransport> preferred;
    private final Set<String> unavailable = ConcurrentHashMap.newKeySet();

    Transports(List<String> names, TransportContext context) {
        List<ClientTransport> made = new ArrayList<>(names.size());
        for (String name : names) {
            made.add(ClientTransport.WEBSOCKET.equals(name) ? new WebSocketTransport(context)
                    : new LongPollingTransport(context));
        }
        this.preferred = List.copyOf(made);
    }

    /** @return the transport to handshake on: the most preferred one still available */
    ClientTransport forHandshake() {
        for (ClientTransport transport : preferred) {
            if (!unavailable.contains(transport.name())) {
                return transport;
            }
        }
        return preferred.get(preferred.size() - 1);
    }

    /** @return the names of the transports still available, for {@code supportedConnectionTypes} */
    List<String> availableNames() {
        List<String> names = new ArrayList<>(preferred.size());
        for (ClientTransport transport : preferred) {
            if (!unavailable.contains(transport.name())) {
                names.add(transport.name());
            }
        }
        return names;
    }

    /**
     * @param serverTypes the server's {@code supportedConnectionTypes}
     * @return the client's most preferred available transport that the server supports, or null
     */
    ClientTransport negotiate(Object serverTypes) {
        if (!(serverTypes instanceof List)) {
            return null;
        }
        List<?> offered = (List<?>) serverTypes;
        for (ClientTransport transport : preferred) {
            if (!unavailable.contains(transport.name()) && offered.contains(transport.name())) {
                return transport;
            }
        }
        return null;
    }

    /**
     * Stops using a transport, unless it is the last one left.
     *
     * @param name the transport's name
     * @return true if another transport remains to fall back to
     */
    boolean fallBackFrom(String name) {
        if (availableNames().size() <= 1 || unavailable.contains(name)) {
            return false;
        }
        unavailable.add(name);
        return true;
    }

    /**
     * @param reason why, reported with the messages that had no reply yet
     */
    void closeAll(Throwable reason) {
        for (ClientTransport transport : preferred) {
            transport.close(reason);
        }
    }
}
