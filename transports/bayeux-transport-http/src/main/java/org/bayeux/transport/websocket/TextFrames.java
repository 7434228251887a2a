package org.bayeux.transport.websocket;

import java.util.ArrayList;
import java.util.List;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.BayeuxServerImpl;
import org.bayeux.server.ServerMessageImpl;

/**
 * Cuts a list of outgoing messages into WebSocket text messages, each one JSON array.
 *
 * <p>A list becomes one text, unless it holds only deliveries and is larger than the frame size, in which case it is
 * cut between messages (a message larger than the frame size gets a text of its own). A list holding any reply is
 * never cut, so that under the {@code ack} extension a batch of messages and the {@code /meta/connect} reply that
 * numbers it always travel together.</p>
 *
 * <p>A text that carries one frozen message alone is that message's cached bytes ({@link BayeuxServerImpl#toJson}):
 * a large broadcast pushed to a thousand sockets is one array, not a thousand copies. Texts joining several
 * messages are built per socket.</p>
 */
final class TextFrames {
    private TextFrames() {
    }

    /**
     * @param engine encodes the messages
     * @param messages the messages, frozen, in order, not empty
     * @param maxFrameBytes the frame size to respect when a list of deliveries may be cut
     * @return the texts, UTF-8 encoded, in order; possibly shared with other sockets, so never to be changed
     */
    static List<byte[]> of(BayeuxServerImpl engine, List<ServerMessage> messages, int maxFrameBytes) {
        if (messages.size() == 1 || containsReply(messages)) {
            return List.of(engine.toJson(messages));
        }
        // Sizes come from the messages' cached JSON: nothing is encoded or copied before the cut is known.
        long whole = 1;
        for (ServerMessage message : messages) {
            whole += lengthOf(engine, message) + 1;
        }
        if (whole <= maxFrameBytes) {
            return List.of(engine.toJson(messages));
        }
        List<byte[]> texts = new ArrayList<>();
        List<ServerMessage> frame = new ArrayList<>();
        long frameBytes = 1;
        for (ServerMessage message : messages) {
            int length = lengthOf(engine, message);
            // "[" + messages joined by "," + "]": each message adds its length and one separator or bracket.
            if (!frame.isEmpty() && frameBytes + length + 1 > maxFrameBytes) {
                texts.add(engine.toJson(frame));
                frame = new ArrayList<>();
                frameBytes = 1;
            }
            frame.add(message);
            frameBytes += length + 1;
        }
        texts.add(engine.toJson(frame));
        return texts;
    }

    private static int lengthOf(BayeuxServerImpl engine, ServerMessage message) {
        return ((ServerMessageImpl) message).jsonLength(engine.getCodec());
    }

    private static boolean containsReply(List<ServerMessage> messages) {
        for (ServerMessage message : messages) {
            if (message.isReply() || message.isMeta()) {
                return true;
            }
        }
        return false;
    }
}
