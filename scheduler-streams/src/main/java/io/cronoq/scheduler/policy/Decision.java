package io.cronoq.scheduler.policy;

import org.apache.avro.specific.SpecificRecord;

/**
 * One outcome of handling one input: an event to journal (an accepted input, or a decision such as
 * {@code AttemptAssigned}, {@code TaskWaiting}), to send to a worker on its assignment key, or both.
 *
 * @param event  an Avro event: a branch of {@code JournalEntry.event} and/or of {@code AssignmentEvent.event}
 * @param worker when non-null, the worker id whose assignment key receives {@code event}
 * @param journal whether {@code event} goes to the journal
 * @param cause  why, in words, when the event itself does not say (may be null)
 * @param pool   when non-null, the pool whose dependency input receives {@code event} (a {@code ParentWatched}
 *               or {@code ParentEnded} for a task of another pool)
 */
public record Decision(SpecificRecord event, String worker, boolean journal, String cause, String pool) {

    public Decision(SpecificRecord event, String worker, boolean journal, String cause) {
        this(event, worker, journal, cause, null);
    }

    /** Send to another pool's scheduler only: it journals the event as its input. */
    public static Decision toPool(SpecificRecord event, String pool) {
        return new Decision(event, null, false, null, pool);
    }

    /** Journal only. */
    public static Decision journal(SpecificRecord event, String cause) {
        return new Decision(event, null, true, cause);
    }

    /** Journal, and send to the worker. */
    public static Decision journalAndNotify(SpecificRecord event, String worker, String cause) {
        return new Decision(event, worker, true, cause);
    }

    /** Send to the worker only (e.g. {@code RegistrationAccepted}, whose journal twin is {@code WorkerAccepted}). */
    public static Decision notify(SpecificRecord event, String worker) {
        return new Decision(event, worker, false, null);
    }
}
