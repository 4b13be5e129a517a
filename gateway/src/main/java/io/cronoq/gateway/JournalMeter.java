package io.cronoq.gateway;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.query.ClassKeys;
import io.cronoq.schemas.KeyPartitions;
import io.cronoq.schemas.events.JournalKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Counters derived from the journal, the scheduler's own record of every decision: placements,
 * finished attempts, completed tasks, accepted submissions and rejected inputs, each per pool —
 * counted only for the pools this instance owns when the entry is read, so that summing every
 * instance counts each decision once. They start at zero when the gateway starts (its
 * {@link JournalFeed} reads the journal from its end for them), as Prometheus counters do. Also
 * counts the dead letters on their topic, read from its beginning (within retention): the same
 * total on every instance, so take the max. Fed by one thread, the feed's.
 */
final class JournalMeter {

    private final MeterRegistry registry;
    private final Supplier<Set<Integer>> ownedPartitions;
    private final IntSupplier inputPartitions;
    private final AtomicLong deadLetters = new AtomicLong();
    private final Map<List<String>, Counter> counters = new HashMap<>();

    JournalMeter(MeterRegistry registry, Supplier<Set<Integer>> ownedPartitions, IntSupplier inputPartitions) {
        this.registry = registry;
        this.ownedPartitions = ownedPartitions;
        this.inputPartitions = inputPartitions;
        Gauge.builder("cronoq.dead.letters", deadLetters, AtomicLong::get)
                .description("Records on the dead-letter topic (within its retention), read from its beginning")
                .register(registry);
    }

    /** The input partitions this instance owns now. */
    /**
     * Which pools' entries are this instance's to count now: those whose input partition it owns.
     * Asked once per batch of records, so the ownership and the partition count are read once.
     */
    Predicate<String> ownedPools() {
        Set<Integer> owned;
        try {
            owned = ownedPartitions.get();
        } catch (RuntimeException e) {
            return pool -> false; // not running (rebalancing): nobody's decisions are being made here right now
        }
        if (owned.isEmpty()) {
            return pool -> false;
        }
        int partitions = inputPartitions.getAsInt();
        // The input partition of a pool: what Kafka's default partitioner gives its key.
        return pool -> pool != null && owned.contains(KeyPartitions.of(pool, partitions));
    }

    /** Counts one record of the dead-letter topic. */
    void deadLetter() {
        deadLetters.incrementAndGet();
    }

    /** Counts what one journal entry of a pool this instance owns says. */
    void count(JournalEntry entry) {
        String pool = entry.getPool();
        Object event = entry.getEvent();
        List<Counter> counted = switch (JournalKind.of(event)) {
            case ATTEMPT_ASSIGNED -> List.of(counter("cronoq.placements", "Attempts assigned to a worker", "pool",
                    pool, "group", ClassKeys.of(((AttemptAssigned) event).getGroup())));
            case TASK_FINISHED -> finished(pool, (TaskFinished) event);
            case TASK_CANCELLED -> List.of(completed(pool, TaskState.CANCELLED));
            case TASK_FORGOTTEN -> List.of(counter("cronoq.tasks.forgotten",
                    "Finished tasks dropped from the stores at the end of their retention", "pool", pool));
            case TASK_SUBMITTED -> List.of(counter("cronoq.submissions", "Submissions the scheduler accepted", "pool",
                    pool));
            case GANG_SUBMITTED -> List.of(counter("cronoq.gangs.submitted", "Gang submissions the scheduler accepted",
                    "pool", pool));
            case TASK_BLOCKED -> List.of(counter("cronoq.tasks.blocked",
                    "Tasks that started waiting for their parents", "pool", pool));
            case PARENT_ENDED -> List.of(counter("cronoq.parents.ended",
                    "Parents' ends told to a child of another pool", "pool", pool));
            case INPUT_REJECTED -> List.of(counter("cronoq.inputs.rejected", "Inputs the scheduler rejected", "pool",
                    pool, "input", ((InputRejected) event).getInputType(), "code",
                    ((InputRejected) event).getCode().name()));
            // Not counted: the workers' own reports and comings and goings, and the decisions no counter follows.
            case TASK_CANCEL_REQUESTED, WORKER_REGISTERED, WORKER_DRAINING, WORKER_LEFT, ATTEMPT_STARTED,
                    ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, TASK_WAITING, DUPLICATE_SUBMISSION, WORKER_ACCEPTED,
                    WORKER_REMOVED, ATTEMPT_REVOKED, WORKER_FENCED, REGISTRATION_REJECTED, SHARING_POLICY_SET,
                    LIMIT_SET, PARENT_WATCHED -> List.of();
        };
        counted.forEach(Counter::increment);
    }

    /** An attempt that ended, and the task too when that ended it for good. */
    private List<Counter> finished(String pool, TaskFinished f) {
        Counter attempts = counter("cronoq.attempts.finished", "Attempts that ended, by outcome", "pool", pool,
                "outcome", f.getOutcome().name());
        if (f.getState() == TaskState.SUCCEEDED || f.getState() == TaskState.FAILED) {
            return List.of(attempts, completed(pool, f.getState()));
        }
        return List.of(attempts);
    }

    private Counter completed(String pool, TaskState state) {
        return counter("cronoq.tasks.completed", "Tasks that reached a final state", "pool", pool, "state",
                state.name());
    }

    private Counter counter(String name, String doc, String... tags) {
        List<String> key = new ArrayList<>(tags.length + 1);
        key.add(name);
        key.addAll(List.of(tags));
        return counters.computeIfAbsent(key, k -> Counter.builder(name).description(doc).tags(tags).register(registry));
    }
}
