package org.bayeux.standalone.testapp;

import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;

/** An application whose start fails, as one with a bad configuration of its own would. */
public final class FailingApplication implements BayeuxApplication {
    @Override
    public void start(ApplicationContext context) {
        throw new IllegalStateException("the test application refuses to start");
    }
}
