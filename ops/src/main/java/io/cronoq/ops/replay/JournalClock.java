package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import io.cronoq.schemas.events.Journal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The time of each journal entry as replay orders it: the latest {@code at} seen so far in the
 * entry's pool. An entry's {@code at} is its input's record timestamp, and Kafka Streams may take
 * an input with an older timestamp after a newer one from another topic; the running maximum keeps
 * each pool's time from going backwards while keeping the journal's order. {@link #heard} reads the
 * scheduler's own clock instead, on which it decided.
 */
final class JournalClock {

    private final Map<String, Long> latest = new HashMap<>();

    /** Advances the entry's pool to the entry and returns the pool's time in epoch milliseconds. */
    long advance(JournalEntry entry) {
        long at = entry.getAt().toEpochMilli();
        return latest.merge(entry.getPool(), at, Math::max);
    }

    /** The times of one pool's entries, in order. */
    static long[] of(List<JournalEntry> entries) {
        JournalClock clock = new JournalClock();
        long[] times = new long[entries.size()];
        for (int i = 0; i < times.length; i++) {
            times[i] = clock.advance(entries.get(i));
        }
        return times;
    }

    /**
     * The times of one pool's entries on the scheduler's own clock, in order: when it heard the
     * input that caused each ({@link Journal#heardAt}: its {@code heardAt}, else its {@code at}, as
     * in a tick's entries and those of older releases), never going backwards. The policy decided
     * on this clock (its ticks, a worker's silence, a preemption grace), whatever clocks the
     * producers of its inputs have.
     */
    static long[] heard(List<JournalEntry> entries) {
        long[] times = new long[entries.size()];
        long latest = Long.MIN_VALUE;
        for (int i = 0; i < times.length; i++) {
            latest = Math.max(latest, Journal.heardAt(entries.get(i)).toEpochMilli());
            times[i] = latest;
        }
        return times;
    }
}
