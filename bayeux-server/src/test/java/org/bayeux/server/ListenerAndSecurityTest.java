package org.bayeux.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.api.ChannelId;
import org.bayeux.api.Promise;
import org.bayeux.api.server.Authorizer;
import org.bayeux.api.server.ChannelListener;
import org.bayeux.api.server.ServerChannel;
import org.bayeux.api.server.ServerExtension;
import org.bayeux.api.server.ServerMessage;
import org.bayeux.api.server.ServerSession;
import org.bayeux.api.server.SessionListener;
import org.bayeux.api.server.SubscriptionListener;
import org.bayeux.server.test.EngineHarness;
import org.bayeux.server.test.TestClient;
import org.bayeux.server.test.TestResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ListenerAndSecurityTest {
    private final EngineHarness engine = EngineHarness.start();

    @AfterEach
    void stop() {
        engine.close();
    }

    private TestClient connected() {
        TestClient client = engine.newClient();
        client.handshake();
        client.firstConnect();
        return client;
    }

    private static List<Object> deliveredData(TestClient client) {
        return client.call("[" + client.connectMessage(",\"advice\":{\"timeout\":0}") + "]").deliveries().stream()
                .map(m -> m.get("data")).collect(java.util.stream.Collectors.toList());
    }

    @Test
    void throwingListenersAndExtensionsNeverStopDelivery() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/chat/a");
        engine.server().addSessionListener(new SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage handshake) {
                throw new IllegalStateException("listener bug");
            }
        });
        engine.server().addExtension(new ServerExtension() {
            @Override
            public boolean rcv(ServerSession session, ServerMessage.Mutable message) {
                throw new IllegalStateException("extension bug");
            }

            @Override
            public boolean send(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message) {
                throw new IllegalStateException("extension bug");
            }
        });
        ServerChannel channel = engine.server().getChannel("/chat/a");
        channel.addMessageListener((sender, on, message) -> {
            throw new IllegalStateException("listener bug");
        });
        engine.server().getSession(a.clientId()).addMessageListener((session, sender, message) -> {
            throw new IllegalStateException("listener bug");
        });
        engine.server().getSession(a.clientId()).addDeQueueListener((session, queue) -> {
            throw new IllegalStateException("listener bug");
        });
        assertThat(b.publish("/chat/a", "1").single("/chat/a")).containsEntry("successful", true);
        assertThat(deliveredData(a)).containsExactly(1L);
        TestClient c = engine.newClient();
        assertThat(c.handshake()).containsEntry("successful", true);
    }

    @Test
    void channelListenerMayChangeOrVetoAMessage() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/chat/**");
        engine.server().createChannelIfAbsent("/chat/**").addMessageListener((sender, channel, message) -> {
            if ("veto".equals(message.getData())) {
                return false;
            }
            message.setData("changed:" + message.getData());
            return true;
        });
        assertThat(b.publish("/chat/x", "\"veto\"").single("/chat/x")).containsEntry("successful", false)
                .containsEntry("error", "404::message_deleted");
        b.publish("/chat/x", "\"hello\"");
        assertThat(deliveredData(a)).containsExactly("changed:hello");
    }

    @Test
    void asynchronousListenerCompletesLater() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/slow");
        engine.server().createChannelIfAbsent("/slow").addMessageListener(new org.bayeux.api.server.ChannelMessageListener() {
            @Override
            public void onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message,
                    Promise<Boolean> promise) {
                new Thread(() -> promise.succeed(true)).start();
            }

            @Override
            public boolean onMessage(ServerSession sender, ServerChannel channel, ServerMessage.Mutable message) {
                return true;
            }
        });
        assertThat(b.publish("/slow", "1").single("/slow")).containsEntry("successful", true);
        assertThat(deliveredData(a)).containsExactly(1L);
    }

    @Test
    void authorizerOnAWildcardAncestorDeniesPublishAndSubscribe() {
        TestClient a = connected();
        engine.server().createChannelIfAbsent("/secret/**", channel -> channel.addAuthorizer(
                (operation, id, session, message) -> operation == Authorizer.Operation.CREATE
                        ? Authorizer.Result.grant() : Authorizer.Result.deny("not_allowed")));
        assertThat(a.subscribe("/secret/a")).containsEntry("successful", false)
                .containsEntry("error", "403:not_allowed:subscribe_denied");
        assertThat(a.subscribe("/secret/*")).containsEntry("error", "403:not_allowed:subscribe_denied");
        assertThat(a.publish("/secret/a", "1").single("/secret/a"))
                .containsEntry("error", "403:not_allowed:publish_denied");
        assertThat(a.subscribe("/public")).containsEntry("successful", true);
    }

    @Test
    void authorizersNeedAGrantAndOneDenyWins() {
        TestClient a = connected();
        ServerChannel room = engine.server().createChannelIfAbsent("/room");
        room.addAuthorizer((operation, id, session, message) -> Authorizer.Result.ignore());
        assertThat(a.subscribe("/room")).containsEntry("error", "403:not_granted:subscribe_denied");
        room.addAuthorizer((operation, id, session, message) -> Authorizer.Result.grant());
        assertThat(a.subscribe("/room")).containsEntry("successful", true);
        engine.server().createChannelIfAbsent("/**").addAuthorizer((operation, id, session, message) ->
                operation == Authorizer.Operation.PUBLISH ? Authorizer.Result.deny("read_only") : Authorizer.Result.ignore());
        assertThat(a.publish("/room", "1").single("/room")).containsEntry("error", "403:read_only:publish_denied");
    }

    @Test
    void coveringChannelsOfPlainAndWildcardChannelsNearestFirst() {
        for (String name : List.of("/a/b/*", "/a/b/**", "/a/*", "/a/**", "/*", "/**", "/a/b", "/ab/**", "/a/bc/*")) {
            engine.server().createChannelIfAbsent(name);
        }
        ChannelRegistry registry = engine.server().channels();
        assertThat(names(registry.covering(ChannelId.of("/a/b/*")))).containsExactly("/a/b/*", "/a/b/**", "/a/**", "/**");
        assertThat(names(registry.covering(ChannelId.of("/a/**")))).containsExactly("/a/**", "/**");
        assertThat(names(registry.covering(ChannelId.of("/a/b")))).containsExactly("/a/b", "/a/*", "/a/**", "/**");
        assertThat(names(registry.covering(ChannelId.of("/a/b/c")))).containsExactly("/a/b/*", "/a/b/**", "/a/**", "/**");
        assertThat(names(registry.covering(ChannelId.of("/x")))).containsExactly("/*", "/**");
        assertThat(names(registry.covering(ChannelId.of("/x/y")))).containsExactly("/**");
        registry.remove((ServerChannelImpl) engine.server().getChannel("/a/**"));
        assertThat(names(registry.covering(ChannelId.of("/a/b/c")))).containsExactly("/a/b/*", "/a/b/**", "/**");
    }

    private static List<String> names(List<ServerChannelImpl> channels) {
        return channels.stream().map(ServerChannelImpl::getId).toList();
    }

    @Test
    void extensionMayDropAnIncomingMessage() {
        TestClient a = connected();
        engine.server().addExtension(new ServerExtension() {
            @Override
            public boolean rcv(ServerSession session, ServerMessage.Mutable message) {
                return !"drop".equals(message.getData());
            }
        });
        assertThat(a.publish("/x", "\"drop\"").single("/x")).containsEntry("error", "404::message_deleted");
        assertThat(a.publish("/x", "\"keep\"").single("/x")).containsEntry("successful", true);
    }

    @Test
    void sessionChannelAndSubscriptionListenersAreTold() {
        List<String> events = new CopyOnWriteArrayList<>();
        engine.server().addSessionListener(new SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage handshake) {
                events.add("added");
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean expired) {
                events.add("removed:" + expired);
            }
        });
        engine.server().addChannelListener(new ChannelListener() {
            @Override
            public void channelAdded(ServerChannel channel) {
                events.add("channel:" + channel.getId());
            }
        });
        engine.server().addSubscriptionListener(new SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                events.add("subscribed:" + channel.getId());
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                events.add("unsubscribed:" + channel.getId());
            }
        });
        TestClient a = connected();
        a.subscribe("/e");
        a.disconnect();
        assertThat(events).containsExactly("added", "channel:/e", "subscribed:/e", "unsubscribed:/e", "removed:false");
    }

    @Test
    void initializersRunOnceBeforeTheChannelIsVisible() {
        List<String> seen = new CopyOnWriteArrayList<>();
        engine.server().addChannelListener(new ChannelListener() {
            @Override
            public void channelAdded(ServerChannel channel) {
                seen.add(channel.getId() + ":" + channel.isPersistent());
            }
        });
        ServerChannel first = engine.server().createChannelIfAbsent("/init", c -> c.setPersistent(true));
        ServerChannel second = engine.server().createChannelIfAbsent("/init", c -> seen.add("ran again"));
        assertThat(first).isSameAs(second);
        assertThat(seen).containsExactly("/init:true");
    }

    @Test
    void outgoingServerExtensionSeesEachBroadcastOnce() {
        TestClient a = connected();
        TestClient b = connected();
        a.subscribe("/x");
        b.subscribe("/x");
        List<Object> seen = new CopyOnWriteArrayList<>();
        engine.server().addExtension(new ServerExtension() {
            @Override
            public boolean send(ServerSession sender, ServerSession receiver, ServerMessage.Mutable message) {
                if (message.isPublish() && !message.isReply()) {
                    seen.add(receiver);
                }
                return true;
            }
        });
        TestResponse response = b.publish("/x", "1");
        assertThat(response.deliveries()).hasSize(1);
        assertThat(seen).hasSize(1).containsOnlyNulls();
        assertThat(deliveredData(a)).containsExactly(1L);
    }
}
