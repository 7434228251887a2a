package org.bayeux.server;

import java.util.List;

import org.bayeux.api.json.JsonCodec;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.server.transport.OutgoingMessages;

/**
 * Messages on their way to a carrier, encoded by the engine's codec: each frozen message once, cached on the message,
 * so every carrier shares the bytes.
 */
final class Deliveries implements OutgoingMessages {
    private final List<? extends ServerMessage> messages;
    private final JsonCodec codec;

    Deliveries(List<? extends ServerMessage> messages, JsonCodec codec) {
        this.messages = messages;
        this.codec = codec;
    }

    @Override
    public int size() {
        return messages.size();
    }

    @Override
    public ServerMessage get(int index) {
        return messages.get(index);
    }

    @Override
    public int jsonLength(int index) {
        return ((ServerMessageImpl) messages.get(index)).jsonLength(codec);
    }

    @Override
    public byte[] toJson(int from, int to) {
        return encode(from == 0 && to == messages.size() ? messages : messages.subList(from, to), codec);
    }

    /**
     * Encodes messages as one JSON array, reusing each frozen message's cached bytes. A single frozen message gives
     * its cached array itself ({@link ServerMessageImpl#toJsonArrayBytes}), shared by every caller: a broadcast sent
     * alone to many clients is not copied per client.
     *
     * @param messages the messages
     * @param codec encodes messages not yet encoded
     * @return the UTF-8 JSON array; may be shared: callers must never change it
     */
    static byte[] encode(List<? extends ServerMessage> messages, JsonCodec codec) {
        int count = messages.size();
        if (count == 1 && messages.get(0).isFrozen()) {
            return ((ServerMessageImpl) messages.get(0)).toJsonArrayBytes(codec);
        }
        // One array of the exact size: a response is built for every delivery, and growing a buffer and copying it
        // out was the largest allocation of a long-polling server.
        byte[][] parts = new byte[count][];
        int length = count == 0 ? 2 : count + 1;
        for (int i = 0; i < count; i++) {
            // Each part is "[message]": the message is everything between the brackets.
            parts[i] = ((ServerMessageImpl) messages.get(i)).toJsonArrayBytes(codec);
            length += parts[i].length - 2;
        }
        byte[] json = new byte[length];
        json[0] = '[';
        int at = 1;
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                json[at++] = ',';
            }
            System.arraycopy(parts[i], 1, json, at, parts[i].length - 2);
            at += parts[i].length - 2;
        }
        json[at] = ']';
        return json;
    }
}
