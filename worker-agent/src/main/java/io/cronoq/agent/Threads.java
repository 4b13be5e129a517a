package io.cronoq.agent;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Names the worker's threads (so a thread dump says whose they are) and logs what escapes them. */
final class Threads {

    private static final Logger log = LoggerFactory.getLogger(Threads.class);

    private Threads() {
    }

    /** Daemon threads called {@code name}, or {@code name-1}, {@code name-2}... when several are made. */
    static ThreadFactory named(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            int n = count.incrementAndGet();
            Thread thread = new Thread(runnable, n == 1 ? name : name + "-" + n);
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, e) -> log.error("Thread {} died", t.getName(), e));
            return thread;
        };
    }

    /** Numbered daemon threads {@code name-1}, {@code name-2}... */
    static ThreadFactory numbered(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            thread.setUncaughtExceptionHandler((t, e) -> log.error("Thread {} died", t.getName(), e));
            return thread;
        };
    }
}
