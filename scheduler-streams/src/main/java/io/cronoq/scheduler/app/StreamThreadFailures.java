package io.cronoq.scheduler.app;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a scheduler instance does when a stream thread dies: a full state directory (ENOSPC anywhere in the cause
 * chain, or an I/O or state-store failure naming the directory) stops the whole client, logged at ERROR with the
 * directory, so the instance leaves its group and another takes its pools; any other failure replaces the thread.
 */
public final class StreamThreadFailures implements StreamsUncaughtExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(StreamThreadFailures.class);
    private static final String NO_SPACE = "No space left on device";

    private final String stateDir;

    public StreamThreadFailures(String stateDir) {
        this.stateDir = Path.of(stateDir).toAbsolutePath().normalize().toString();
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable error) {
        if (stateDirectoryFailure(error, stateDir)) {
            log.error("The state directory {} is full or failing; this instance shuts down so another instance takes "
                    + "its pools (free space there, then start it again)", stateDir, error);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        // Bad input never gets here (it is dead-lettered); this is an infrastructure failure.
        log.error("Stream thread failed; replacing it", error);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** Whether the failure is the state directory's: no space left, or an I/O or store error that names it. */
    static boolean stateDirectoryFailure(Throwable error, String stateDir) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains(NO_SPACE)) {
                return true;
            }
            if ((t instanceof IOException || t instanceof ProcessorStateException) && message.contains(stateDir)) {
                return true;
            }
        }
        return false;
    }
}
