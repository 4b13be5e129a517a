package io.cronoq.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

/** Which stream-thread failures stop a scheduler instance (its state directory is full or failing) and which replace the thread. */
class StreamThreadFailuresTest {

    private final StreamThreadFailures handler = new StreamThreadFailures("/var/lib/cronoq/state");

    @Test
    void noSpaceLeftAnywhereInTheCauseChainShutsTheClientDown() {
        Throwable rocks = new RuntimeException("IO error: No space left on device: While appending to file: "
                + "/var/lib/cronoq/state/app/0_1/rocksdb/tasks/000012.sst");
        Throwable error = new StreamsException("Exception caught in process",
                new ProcessorStateException("Error while putting key/value into store tasks", rocks));
        assertThat(handler.handle(error)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void anIoOrStoreFailureNamingTheStateDirectoryShutsTheClientDown() {
        assertThat(handler.handle(new StreamsException(new UncheckedIOException(
                new IOException("Read-only file system: /var/lib/cronoq/state/app/.checkpoint")))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(handler.handle(new ProcessorStateException("cannot lock /var/lib/cronoq/state/app/0_0")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void anyOtherFailureReplacesTheThread() {
        assertThat(handler.handle(new StreamsException(new TimeoutException("broker unreachable"))))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(handler.handle(new ProcessorStateException("store tasks is closed")))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(handler.handle(new IOException("Connection reset by peer")))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }
}
