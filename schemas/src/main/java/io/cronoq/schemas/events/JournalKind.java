package io.cronoq.schemas.events;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.DuplicateSubmission;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.LimitSet;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.ParentWatched;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskBlocked;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import java.util.Map;

/**
 * What a journal entry is: one constant per event the journal's union holds, inputs first, then
 * decisions. Every reader of the journal decides per kind in a {@code switch} expression with no
 * {@code default}, so adding an event to the journal is one compile error in each reader that must
 * say what the new event means to it, and nothing is skipped silently.
 */
public enum JournalKind {
    TASK_SUBMITTED(TaskSubmitted.class),
    TASK_CANCEL_REQUESTED(TaskCancelRequested.class),
    WORKER_REGISTERED(WorkerRegistered.class),
    WORKER_DRAINING(WorkerDraining.class),
    WORKER_LEFT(WorkerLeft.class),
    ATTEMPT_STARTED(AttemptStarted.class),
    ATTEMPT_SUCCEEDED(AttemptSucceeded.class),
    ATTEMPT_FAILED(AttemptFailed.class),
    TASK_WAITING(TaskWaiting.class),
    ATTEMPT_ASSIGNED(AttemptAssigned.class),
    TASK_FINISHED(TaskFinished.class),
    TASK_CANCELLED(TaskCancelled.class),
    DUPLICATE_SUBMISSION(DuplicateSubmission.class),
    INPUT_REJECTED(InputRejected.class),
    WORKER_ACCEPTED(WorkerAccepted.class),
    WORKER_REMOVED(WorkerRemoved.class),
    ATTEMPT_REVOKED(AttemptRevoked.class),
    WORKER_FENCED(WorkerFenced.class),
    REGISTRATION_REJECTED(RegistrationRejected.class),
    TASK_FORGOTTEN(TaskForgotten.class),
    SHARING_POLICY_SET(SharingPolicySet.class),
    LIMIT_SET(LimitSet.class),
    GANG_SUBMITTED(GangSubmitted.class),
    PARENT_WATCHED(ParentWatched.class),
    PARENT_ENDED(ParentEnded.class),
    TASK_BLOCKED(TaskBlocked.class);

    private static final Map<Class<?>, JournalKind> BY_TYPE = EventTypes.index(values(), JournalKind::type);

    private final Class<?> type;

    JournalKind(Class<?> type) {
        this.type = type;
    }

    /**
     * The kind at {@code index} in the journal's union (the constants are in the union's order).
     *
     * @throws IllegalArgumentException for an index outside the union
     */
    public static JournalKind ofBranch(int index) {
        JournalKind[] kinds = values();
        if (index < 0 || index >= kinds.length) {
            throw new IllegalArgumentException("the journal's union has no branch " + index);
        }
        return kinds[index];
    }

    /** The kind of an entry. */
    public static JournalKind of(JournalEntry entry) {
        return of(entry.getEvent());
    }

    /**
     * The kind of a journal event.
     *
     * @throws IllegalArgumentException for an object the journal's union cannot hold
     */
    public static JournalKind of(Object event) {
        JournalKind kind = EventTypes.find(BY_TYPE, event);
        if (kind == null) {
            throw new IllegalArgumentException("not a journal event: "
                    + (event == null ? "null" : event.getClass().getName()));
        }
        return kind;
    }

    /** The Avro class of this kind's event. */
    public Class<?> type() {
        return type;
    }
}
