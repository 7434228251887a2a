package org.bayeux.client;

import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one wrapper around user code (listeners, callbacks, extensions, hooks): a failure is logged and the client
 * carries on.
 */
final class Callbacks {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxClient.class);

    private Callbacks() {
    }

    /**
     * @param owner the user object whose code runs, named in the log
     * @param code the call
     */
    static void run(Object owner, Runnable code) {
        try {
            code.run();
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable failure) {
            LOG.warn("{} threw; the client carries on", owner, failure);
        }
    }

    /**
     * @param owner the user object whose code runs, named in the log
     * @param code the call
     * @param fallback the answer if the call throws
     * @return the call's answer, or {@code fallback}
     */
    static boolean test(Object owner, BooleanSupplier code, boolean fallback) {
        try {
            return code.getAsBoolean();
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable failure) {
            LOG.warn("{} threw; the client carries on", owner, failure);
            return fallback;
        }
    }
}
