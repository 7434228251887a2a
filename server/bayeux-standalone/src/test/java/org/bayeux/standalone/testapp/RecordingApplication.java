package org.bayeux.standalone.testapp;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;

/** Records its life cycle, for the tests that run it in their own JVM (its class is then the test's). */
public final class RecordingApplication implements BayeuxApplication {
    /** "start", then "stop: N sessions": what happened, in order, across instances. */
    public static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    private volatile ApplicationContext context;

    @Override
    public void start(ApplicationContext context) {
        this.context = context;
        EVENTS.add("start");
    }

    @Override
    public void stop() {
        // The server still runs: its channels and sessions are there to say goodbye on.
        EVENTS.add("stop: " + context.server().getSessions().size() + " sessions");
    }
}
