package org.bayeux.transport.jetty.example;

import org.bayeux.api.server.SecurityPolicy;

/** The policy operations.md's {@link ChatApp} installs: here the defaults, which allow what the protocol allows. */
public final class MyPolicy implements SecurityPolicy {
}
