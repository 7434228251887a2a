package org.bayeux.transport.websocket;

import java.util.ArrayList;
import java.util.List;

import org.bayeux.server.transport.OutgoingMessages;

/**
 * Cuts a list of outgoing messages into WebSocket text messages, each one JSON array.
 *
 * <p>A list becomes one text, unless it holds only deliveries and is larger than the frame size, in which case it is
 * cut between messages (a message larger than the frame size gets a text of its own). A list holding any reply is
 * never cut, so that under the {@code ack} extension a batch of messages and the {@code /meta/connect} reply that
 * numbers it always travel together.</p>
 *
 * <p>A text that carries one frozen message alone is that message's cached bytes
 * ({@link OutgoingMessages#toJson(int, int)}): a large broadcast pushed to a thousand sockets is one array, not a
 * thousand copies. Texts joining several messages are built per socket.</p>
 */
final class TextFrames {
    private TextFrames() {
    }

    /**
     * @param messages the messages, frozen, in order, not empty, with their bytes
     * @param maxFrameBytes the frame size to respect when a list of deliveries may be cut
     * @return the texts, UTF-8 encoded, in order; possibly shared with other sockets, so never to be changed
     */
    static List<byte[]> of(OutgoingMessages messages, int maxFrameBytes) {
        int count = messages.size();
        if (count == 1 || messages.containsMetaOrReply()) {
            return List.of(messages.toJson());
        }
        // Sizes come from the messages' cached JSON: nothing is encoded or copied before the cut is known.
        long whole = 1;
        for (int i = 0; i < count; i++) {
            whole += messages.jsonLength(i) + 1;
        }
        if (whole <= maxFrameBytes) {
            return List.of(messages.toJson());
        }
        List<byte[]> texts = new ArrayList<>();
        int frameStart = 0;
        long frameBytes = 1;
        for (int i = 0; i < count; i++) {
            int length = messages.jsonLength(i);
            // "[" + messages joined by "," + "]": each message adds its length and one separator or bracket.
            if (i > frameStart && frameBytes + length + 1 > maxFrameBytes) {
                texts.add(messages.toJson(frameStart, i));
                frameStart = i;
                frameBytes = 1;
            }
            frameBytes += length + 1;
        }
        texts.add(messages.toJson(frameStart, count));
        return texts;
    }
}
