package io.cronoq.agent.process;

import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two-stage termination for the agent process: the first SIGTERM (or SIGINT) asks for a drain, the second for an
 * immediate stop. Installed as JVM signal handlers, so the JVM does not begin its own shutdown on the first signal.
 * Where signal handlers are not available, a shutdown hook stops the worker at once instead.
 */
public final class TerminationSignals {

    private static final Logger log = LoggerFactory.getLogger(TerminationSignals.class);

    private final Runnable onFirst;
    private final Runnable onSecond;
    private final AtomicInteger received = new AtomicInteger();

    /**
     * @param onFirst  run on the first signal; must not block (e.g. start a drain)
     * @param onSecond run on the second signal; stops at once
     */
    public TerminationSignals(Runnable onFirst, Runnable onSecond) {
        this.onFirst = onFirst;
        this.onSecond = onSecond;
    }

    /** Handles one termination signal; the third and later ones change nothing. */
    public void signalled(String name) {
        int n = received.incrementAndGet();
        if (n == 1) {
            log.info("SIG{} received: draining", name);
            onFirst.run();
        } else if (n == 2) {
            log.warn("SIG{} received again: stopping at once", name);
            onSecond.run();
        }
    }

    /** How many signals arrived. */
    public int received() {
        return received.get();
    }

    /** Installs the handlers for SIGTERM and SIGINT. */
    public void install() {
        try {
            // sun.misc.Signal is the only way a JVM can see a second SIGTERM: a shutdown hook runs once, after the
            // JVM has already begun to exit. It lives in jdk.unsupported, which every JDK ships.
            for (String name : new String[] {"TERM", "INT"}) {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> signalled(signal.getName()));
            }
        } catch (IllegalArgumentException | LinkageError e) {
            log.warn("Signal handlers are not available ({}); a termination stops the worker at once", e.toString());
            Runtime.getRuntime().addShutdownHook(new Thread(onSecond, "cronoq-stop"));
        }
    }
}
