package io.cronoq.agent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a running attempt that it must stop: the attempt was revoked, its worker generation was fenced, or the
 * worker is stopping at once. It can be polled ({@link #isCancelled()}, {@link #throwIfCancelled()}), awaited
 * ({@link #await(Duration)}) or observed ({@link #onCancel(Runnable)}). It fires at most once and never resets;
 * the attempt's thread is interrupted as well. Thread-safe.
 */
public final class CancellationSignal {

    private static final Logger log = LoggerFactory.getLogger(CancellationSignal.class);

    private final CountDownLatch fired = new CountDownLatch(1);
    private final List<Runnable> listeners = new ArrayList<>();
    private volatile String reason;

    /** Fires the signal with a reason; later calls change nothing. Returns whether this call fired it. */
    public boolean cancel(String why) {
        List<Runnable> toRun;
        synchronized (listeners) {
            if (reason != null) {
                return false;
            }
            reason = why == null ? "cancelled" : why;
            toRun = List.copyOf(listeners);
            listeners.clear();
        }
        fired.countDown();
        toRun.forEach(CancellationSignal::runQuietly);
        return true;
    }

    /** Whether the attempt must stop. */
    public boolean isCancelled() {
        return reason != null;
    }

    /** Why the attempt must stop, once it must. */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }

    /** Throws {@link AttemptCancelledException} with the reason once the attempt must stop. */
    public void throwIfCancelled() {
        String why = reason;
        if (why != null) {
            throw new AttemptCancelledException(why);
        }
    }

    /** Waits until the attempt must stop or the time is up; returns whether it must stop. */
    public boolean await(Duration timeout) throws InterruptedException {
        return fired.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Waits until the attempt must stop. */
    public void await() throws InterruptedException {
        fired.await();
    }

    /**
     * Runs the action when the signal fires (on the thread that fires it), or at once if it has fired already.
     * Keep it short and non-blocking, e.g. destroying a child process.
     */
    public void onCancel(Runnable action) {
        synchronized (listeners) {
            if (reason == null) {
                listeners.add(action);
                return;
            }
        }
        runQuietly(action);
    }

    private static void runQuietly(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.warn("A cancellation listener failed", e);
        }
    }
}
