package org.bayeux.api.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.bayeux.api.ChannelId;
import org.bayeux.api.MapMessage;
import org.bayeux.api.Message;
import org.bayeux.api.client.ClientSession;
import org.bayeux.api.client.ClientSessionChannel.MessageListener;
import org.junit.jupiter.api.Test;

class AbstractClientSessionChannelTest {
    /** Records what the base asks of its subclass. */
    private static final class RecordingChannel extends AbstractClientSessionChannel {
        final List<String> sent = new ArrayList<>();

        RecordingChannel() {
            super(ChannelId.of("/a"));
        }

        @Override
        protected void sendSubscription(String metaChannel, MessageListener subscriber, MessageListener callback) {
            sent.add(metaChannel);
        }

        @Override
        protected void invoke(MessageListener listener, Message message) {
            listener.onMessage(this, message);
        }

        @Override
        public ClientSession getSession() {
            return null;
        }

        @Override
        public void publish(Object data, MessageListener callback) {
        }

        @Override
        public void publish(Message.Mutable message, MessageListener callback) {
        }
    }

    @Test
    void onlyTheFirstSubscriberAndTheLastUnsubscriberGoToTheServer() {
        RecordingChannel channel = new RecordingChannel();
        MessageListener first = (c, m) -> { };
        MessageListener second = (c, m) -> { };
        List<Message> localReplies = new ArrayList<>();

        channel.subscribe(first, null);
        channel.subscribe(second, (c, reply) -> localReplies.add(reply));
        assertThat(channel.sent).containsExactly(Message.META_SUBSCRIBE);
        assertThat(channel.getSubscribers()).containsExactly(first, second);
        assertThat(localReplies).singleElement().satisfies(reply -> {
            assertThat(reply.getChannel()).isEqualTo(Message.META_SUBSCRIBE);
            assertThat(reply.get(Message.SUBSCRIPTION_FIELD)).isEqualTo("/a");
            assertThat(reply.isSuccessful()).isTrue();
        });

        channel.unsubscribe(first, (c, reply) -> localReplies.add(reply));
        assertThat(channel.sent).containsExactly(Message.META_SUBSCRIBE);
        assertThat(localReplies).hasSize(2).last()
                .satisfies(reply -> assertThat(reply.getChannel()).isEqualTo(Message.META_UNSUBSCRIBE));

        channel.unsubscribe(second, null);
        assertThat(channel.sent).containsExactly(Message.META_SUBSCRIBE, Message.META_UNSUBSCRIBE);
        assertThat(channel.hasSubscribers()).isFalse();

        channel.unsubscribe();
        assertThat(channel.sent).hasSize(2);
    }

    @Test
    void deliversToSubscribersAndListenersApart() {
        RecordingChannel channel = new RecordingChannel();
        List<String> calls = new ArrayList<>();
        channel.addListener((c, m) -> calls.add("listener"));
        channel.subscribe((c, m) -> calls.add("subscriber"), null);
        Message message = MapMessage.on("/a");

        channel.notifySubscribers(message);
        channel.notifyListeners(message);
        assertThat(calls).containsExactly("subscriber", "listener");

        channel.clearSubscribers();
        channel.notifySubscribers(message);
        assertThat(calls).hasSize(2);
        assertThat(channel.getListeners()).hasSize(1);
    }
}
