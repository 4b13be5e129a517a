package io.cronoq.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.streams.KafkaStreams;

/** Waiting for a condition with a deadline, for the bench's phases (not for tests: they use Awaitility). */
public final class Waits {

    private Waits() {}

    /**
     * Returns once {@code condition} holds, checking every 10 ms.
     *
     * @throws BenchTimeoutException after {@code timeout}, saying what did not happen
     */
    public static void until(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new BenchTimeoutException("gave up after " + timeout.toSeconds() + " s waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            if (Thread.currentThread().isInterrupted()) {
                throw new BenchTimeoutException("interrupted while waiting for " + what);
            }
        }
    }

    /** Returns once the Kafka Streams app is RUNNING. */
    public static void running(KafkaStreams streams, Duration timeout, String what) {
        until(() -> {
            KafkaStreams.State state = streams.state();
            if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.NOT_RUNNING) {
                throw new IllegalStateException(what + " stopped (" + state + ")");
            }
            return state == KafkaStreams.State.RUNNING;
        }, timeout, what + " to run");
    }

    /** A phase of the bench did not finish in time. */
    public static final class BenchTimeoutException extends RuntimeException {
        public BenchTimeoutException(String message) {
            super(message);
        }
    }
}
