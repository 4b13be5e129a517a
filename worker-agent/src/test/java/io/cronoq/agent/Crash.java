package io.cronoq.agent;

/** Lets tests outside this package crash a worker: it stops without a word to the scheduler. */
public final class Crash {

    private Crash() {
    }

    /** Stops the worker as a killed process would: running attempts are abandoned, nothing is reported. */
    public static void halt(CronoqWorker worker) {
        worker.halt();
    }
}
