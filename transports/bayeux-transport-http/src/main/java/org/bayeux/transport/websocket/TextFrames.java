package org.bayeux.transport.websocket;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.BayeuxServerImpl;

/**
 * Cuts a list of outgoing messages into WebSocket text messages, each one JSON array.
 *
 * <p>A list becomes one text, unless it holds only deliveries and is larger than the frame size, in which case it is
 * cut between messages (a message larger than the frame size gets a text of its own). A list holding any reply is
 * never cut, so that under the {@code ack} extension a batch of messages and the {@code /meta/connect} reply that
 * numbers it always travel together.</p>
 */
final class TextFrames {
    private TextFrames() {
    }

    /**
     * @param engine encodes the messages
     * @param messages the messages, in order, not empty
     * @param maxFrameBytes the frame size to respect when a list of deliveries may be cut
     * @return the texts, UTF-8 encoded, in order
     */
    static List<byte[]> of(BayeuxServerImpl engine, List<ServerMessage> messages, int maxFrameBytes) {
        byte[] whole = engine.toJson(messages);
        if (whole.length <= maxFrameBytes || messages.size() == 1 || containsReply(messages)) {
            return List.of(whole);
        }
        List<byte[]> texts = new ArrayList<>();
        ByteArrayOutputStream text = new ByteArrayOutputStream(maxFrameBytes);
        for (ServerMessage message : messages) {
            byte[] single = engine.toJson(List.of(message));
            // single is "[" + message + "]": the message is everything between the brackets.
            int length = single.length - 2;
            if (text.size() > 0 && text.size() + 1 + length + 1 > maxFrameBytes) {
                texts.add(finish(text));
            }
            text.write(text.size() == 0 ? '[' : ',');
            text.write(single, 1, length);
        }
        texts.add(finish(text));
        return texts;
    }

    private static byte[] finish(ByteArrayOutputStream text) {
        text.write(']');
        byte[] finished = text.toByteArray();
        text.reset();
        return finished;
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
