package io.cronoq.gateway;

import io.cronoq.events.GangSubmitted;
import io.cronoq.events.LimitSet;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;

/**
 * The only writes the gateway makes: events on the scheduler's input topics, keyed by pool
 * (submissions of tasks and gangs, cancels, sharing policies and limits on the submissions topic, drains on the workers topic). Each
 * returns once the event is durably on its topic, or throws {@link ApiException} UNAVAILABLE.
 */
public interface Commands {

    void submit(TaskSubmitted task);

    /**
     * The tasks of a workflow, in order (every parent before its children), all sent before any is awaited. A
     * failure part-way leaves the tasks already written; their ids are the workflow's, so sending the same
     * workflow again submits only what is missing (a task id seen before is ignored).
     */
    void submitAll(java.util.List<TaskSubmitted> tasks);

    /** A gang: one record holding every member, so its members are accepted together or not at all. */
    void submitGang(GangSubmitted gang);

    void cancel(TaskCancelRequested cancel);

    void drain(WorkerDraining drain);

    /** How a pool is shared between tenants: a tenant's weight and quotas, or the pool's preemption. */
    void share(SharingPolicySet policy);

    /** One limit of a pool: a concurrency key's limit, or a rate limit, set or removed. */
    void limit(LimitSet limit);
}
