package io.cronoq.ops;

import java.util.concurrent.CountDownLatch;

/** How a command that runs until Ctrl-C stops: the JVM's shutdown closes what it runs, then the command may return. */
final class UntilStopped {

    private UntilStopped() {}

    /**
     * Runs {@code close} on the JVM's shutdown, in a thread named {@code threadName}; the latch returned
     * opens once it has run.
     */
    static CountDownLatch closeOnShutdown(String threadName, Runnable close) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            close.run();
            stopped.countDown();
        }, threadName));
        return stopped;
    }
}
