package io.cronoq.scheduler.policy.time;

import io.cronoq.schemas.rules.Durations;
import io.cronoq.events.TaskSubmitted;
import java.time.Instant;

/** What the journal says about a task's times: a fixed start kept or missed, a deadline passed. */
public final class TimeCauses {

    private TimeCauses() {}

    /**
     * For a fixed-start task that {@code what} (started, or was assigned too late to be held) at
     * {@code at}: on time within its tolerance (its own, else {@code defaultToleranceMs}), or late;
     * {@code null} for a task without a fixed start.
     */
    public static String startVerdict(TaskSubmitted s, Instant at, String what, long defaultToleranceMs) {
        if (s.getStartAt() == null) {
            return null;
        }
        long late = at.toEpochMilli() - s.getStartAt().toEpochMilli();
        long tolerance = s.getStartToleranceMs() != null ? s.getStartToleranceMs() : defaultToleranceMs;
        String head = "fixed start at " + s.getStartAt() + ": ";
        if (late < 0) {
            return head + what + " " + Durations.words(-late) + " early";
        }
        return late <= tolerance
                ? head + what + " on time (" + Durations.words(late) + " after, within its tolerance of "
                        + Durations.words(tolerance) + ")"
                : head + what + " late, " + Durations.words(late) + " after, beyond its tolerance of "
                        + Durations.words(tolerance);
    }

    /** "late: {@code what} … after its deadline …" when {@code at} is past the task's deadline, else {@code null}. */
    public static String lateness(TaskSubmitted s, Instant at, String what) {
        if (s.getDeadline() == null || !at.isAfter(s.getDeadline())) {
            return null;
        }
        return "late: " + what + " " + Durations.words(at.toEpochMilli() - s.getDeadline().toEpochMilli())
                + " after its deadline " + s.getDeadline();
    }
}
