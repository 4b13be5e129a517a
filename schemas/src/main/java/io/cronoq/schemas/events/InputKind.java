package io.cronoq.schemas.events;

import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptProgress;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.LimitSet;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.ParentWatched;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import java.util.Map;

/**
 * What an input to the scheduler is: one constant per event of the input topics' unions
 * (submissions, workers, completions, and the dependencies topic the scheduler writes itself). The policy takes every input through one {@code switch}
 * over this kind with no {@code default}, so a new input event is a compile error where it must be
 * decided, never a silent skip.
 */
public enum InputKind {
    TASK_SUBMITTED(TaskSubmitted.class),
    TASK_CANCEL_REQUESTED(TaskCancelRequested.class),
    SHARING_POLICY_SET(SharingPolicySet.class),
    LIMIT_SET(LimitSet.class),
    GANG_SUBMITTED(GangSubmitted.class),
    WORKER_REGISTERED(WorkerRegistered.class),
    WORKER_HEARTBEAT(WorkerHeartbeat.class),
    WORKER_DRAINING(WorkerDraining.class),
    WORKER_LEFT(WorkerLeft.class),
    ATTEMPT_STARTED(AttemptStarted.class),
    ATTEMPT_PROGRESS(AttemptProgress.class),
    ATTEMPT_SUCCEEDED(AttemptSucceeded.class),
    ATTEMPT_FAILED(AttemptFailed.class),
    PARENT_WATCHED(ParentWatched.class),
    PARENT_ENDED(ParentEnded.class);

    private static final Map<Class<?>, InputKind> BY_TYPE = EventTypes.index(values(), InputKind::type);

    private final Class<?> type;

    InputKind(Class<?> type) {
        this.type = type;
    }

    /** The kind of an input event, or {@code null} for an object no input topic's union holds. */
    public static InputKind find(Object event) {
        return EventTypes.find(BY_TYPE, event);
    }

    /** The Avro class of this kind's event. */
    public Class<?> type() {
        return type;
    }
}
