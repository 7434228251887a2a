package org.bayeux.api;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The completion of an asynchronous step: a security check, an extension or a listener that may finish later,
 * for example after a database look-up.
 *
 * <p>Exactly one of {@link #succeed(Object)} or {@link #fail(Throwable)} must be called, once, from any thread.
 * Simple callbacks never see a promise: the asynchronous SPIs have synchronous default methods that complete it
 * for them.</p>
 *
 * @param <T> the type of the result
 */
public interface Promise<T> {
    /**
     * Completes this step with a result.
     *
     * @param result the result
     */
    void succeed(T result);

    /**
     * Completes this step with a failure.
     *
     * @param failure the cause
     */
    void fail(Throwable failure);

    /**
     * Runs a supplier and completes the promise with its result or with the exception it threw.
     *
     * @param promise the promise to complete
     * @param supplier the work to run
     * @param <T> the result type
     */
    static <T> void complete(Promise<T> promise, java.util.function.Supplier<T> supplier) {
        T result;
        try {
            result = supplier.get();
        } catch (Throwable failure) {
            promise.fail(failure);
            return;
        }
        promise.succeed(result);
    }

    /**
     * @param <T> the result type
     * @return a promise that ignores its completion
     */
    static <T> Promise<T> noop() {
        return of(result -> { }, failure -> { });
    }

    /**
     * @param onSuccess called with the result
     * @param onFailure called with the failure
     * @param <T> the result type
     * @return a promise that calls one of the two functions
     */
    static <T> Promise<T> of(Consumer<? super T> onSuccess, Consumer<Throwable> onFailure) {
        return new Promise<>() {
            @Override
            public void succeed(T result) {
                onSuccess.accept(result);
            }

            @Override
            public void fail(Throwable failure) {
                onFailure.accept(failure);
            }
        };
    }

    /**
     * @param completion called with the result and null, or with null and the failure
     * @param <T> the result type
     * @return a promise that calls {@code completion}
     */
    static <T> Promise<T> from(BiConsumer<? super T, Throwable> completion) {
        return of(result -> completion.accept(result, null), failure -> completion.accept(null, failure));
    }
}
