package io.cronoq.agent;

import io.cronoq.events.AttemptRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts a worker holds a slot for, in the order they were assigned, and the ids of those that ended lately,
 * so that a repeated assignment of one is not run again. Not thread-safe: the {@link WorkerCore} guards it with its
 * lock. Aborting walks a copy, since an abort may end the attempt (and remove it) at once.
 */
final class HeldAttempts {

    /** Its aborts are logged as the worker's own. */
    private static final Logger log = LoggerFactory.getLogger(WorkerCore.class);
    private static final int REMEMBERED_FINISHED = 4096;

    private final Map<AttemptId, AttemptRun> running = new LinkedHashMap<>();
    private final Set<AttemptId> finished = Collections.newSetFromMap(new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<AttemptId, Boolean> eldest) {
            return size() > REMEMBERED_FINISHED;
        }
    });

    /** Whether the attempt runs now or ended lately. */
    boolean known(AttemptId id) {
        return running.containsKey(id) || finished.contains(id);
    }

    void add(AttemptRun attempt) {
        running.put(attempt.id(), attempt);
    }

    /** The running attempt of that id, or null. */
    AttemptRun get(AttemptId id) {
        return running.get(id);
    }

    /** The attempt no longer holds its slot; its id is remembered as finished. */
    void ended(AttemptRun attempt) {
        running.remove(attempt.id(), attempt);
        finished.add(attempt.id());
    }

    boolean isEmpty() {
        return running.isEmpty();
    }

    int size() {
        return running.size();
    }

    List<AttemptId> ids() {
        return List.copyOf(running.keySet());
    }

    /** The running attempts of that generation, as a heartbeat lists them. */
    List<AttemptRef> refs(long generation) {
        List<AttemptRef> refs = new ArrayList<>();
        for (AttemptRun a : running.values()) {
            if (a.generation() == generation) {
                refs.add(new AttemptRef(a.id().taskId(), a.id().attempt(), null, 0, List.of()));
            }
        }
        return refs;
    }

    /**
     * Aborts every running attempt.
     *
     * @param reported what the abort reports as the attempt's failure, or null to report nothing
     */
    void abortAll(String reason, String reported) {
        for (AttemptRun a : new ArrayList<>(running.values())) {
            a.abort(reason, reported);
        }
    }

    /** Aborts, unreported, the running attempts that match, logging each as {@code what} happened to it. */
    void abortWhere(Predicate<AttemptRun> which, String reason, String what) {
        for (AttemptRun a : new ArrayList<>(running.values())) {
            if (which.test(a)) {
                log.warn("Attempt {} of task {} {}; aborting the local copy: {}", a.id().attempt(), a.id().taskId(),
                        what, reason);
                a.abort(reason, null);
            }
        }
    }
}
