package org.bayeux.server.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

import org.bayeux.api.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls user code in isolation: whatever a listener, extension, authorizer or policy throws (or fails its promise
 * with) is logged and replaced by a safe answer, so one bad callback never breaks the server or other sessions.
 *
 * <p>Failures are logged through a {@link RateLimitedLog}: the first of each kind (callback class and exception
 * class) at WARN with its stack trace, the rest counted and summarised. A callback is named by its class, never by
 * its {@code toString()}, which could show a session's id or a message.</p>
 */
public final class Callbacks {
    private static final Logger LOG = LoggerFactory.getLogger(Callbacks.class);
    private static final RateLimitedLog QUIET = new RateLimitedLog(LOG);

    private Callbacks() {
    }

    /**
     * Runs a callback that returns nothing.
     *
     * @param what names the callback in the log
     * @param callback the user code
     */
    public static void run(Object what, Runnable callback) {
        try {
            callback.run();
        } catch (Throwable failure) {
            failed(what, failure, "ignored");
        }
    }

    /**
     * Runs a callback that returns a boolean.
     *
     * @param what names the callback in the log
     * @param callback the user code
     * @param onFailure the answer used when the callback throws
     * @return the callback's answer, or {@code onFailure}
     */
    public static boolean test(Object what, BooleanSupplier callback, boolean onFailure) {
        try {
            return callback.getAsBoolean();
        } catch (Throwable failure) {
            failed(what, failure, "taken as " + onFailure);
            return onFailure;
        }
    }

    /**
     * Calls an asynchronous callback and turns its promise into a future. A throw, a failed promise or a null result
     * completes the future with {@code onFailure}; a second completion of the promise is ignored.
     *
     * @param what names the callback in the log
     * @param call calls the user code with the promise
     * @param onFailure the answer used when the callback fails
     * @param <T> the answer type
     * @return the answer
     */
    public static <T> CompletableFuture<T> ask(Object what, java.util.function.Consumer<Promise<T>> call, T onFailure) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        Promise<T> promise = new Promise<>() {
            @Override
            public void succeed(T result) {
                if (result == null) {
                    QUIET.warn("null:" + nameOf(what), "Callback {} answered null; taken as {}", nameOf(what),
                            onFailure);
                    answer.complete(onFailure);
                } else {
                    answer.complete(result);
                }
            }

            @Override
            public void fail(Throwable failure) {
                failed(what, failure, "taken as " + onFailure);
                answer.complete(onFailure);
            }
        };
        try {
            call.accept(promise);
        } catch (Throwable failure) {
            promise.fail(failure);
        }
        return answer;
    }

    private static void failed(Object what, Throwable failure, String outcome) {
        String name = nameOf(what);
        QUIET.warn(name + ":" + failure.getClass().getName(), "Callback {} failed; {}", name, outcome, failure);
    }

    /** @return a description of a callback that shows no data: the text given, or the callback's class */
    static String nameOf(Object what) {
        if (what instanceof String) {
            return (String) what;
        }
        return what == null ? "null" : what.getClass().getName();
    }

    /**
     * Asks each callback in turn whether to go on, stopping at the first that says no.
     *
     * @param callbacks the callbacks, in order
     * @param call calls one callback with its promise
     * @param <C> the callback type
     * @return true if every callback said yes (a failing callback counts as yes: it is taken as not having acted)
     */
    public static <C> CompletionStage<Boolean> allAgree(List<C> callbacks, BiConsumer<C, Promise<Boolean>> call) {
        CompletionStage<Boolean> result = CompletableFuture.completedFuture(Boolean.TRUE);
        for (C callback : callbacks) {
            result = result.thenCompose(goOn -> goOn
                    ? ask(callback, promise -> call.accept(callback, promise), Boolean.TRUE)
                    : CompletableFuture.completedFuture(Boolean.FALSE));
        }
        return result;
    }
}
