package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.Dependency;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.ParentWatched;
import io.cronoq.events.TaskBlocked;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.store.DependencyStore;
import io.cronoq.scheduler.policy.store.DependencyStore.Child;
import io.cronoq.scheduler.policy.time.Retention;
import io.cronoq.scheduler.policy.time.RetryRule;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tasks that wait for other tasks. A task that names parents ({@code after}) is BLOCKED: it holds no
 * slot and waits outside every line, counting its parents still to end. Each parent's pool is told
 * to watch it ({@code ParentWatched}); when a watched parent reaches a final state, each child's pool
 * is told how it ended ({@code ParentEnded}, with its result) in the same input, so in the same
 * transaction. A child whose parent ended as it asked counts one parent fewer, and once none is left
 * it enters its line with its own priority and its original submission order; a parent that ended
 * otherwise cancels the child, with the parent's end as the reason, unless the child asked to run
 * anyway ({@code runIfParentUnmet}). A cancelled child is a parent that ended too, so the
 * cancellation reaches its own children the same way.
 *
 * <p>Parents and children of the same pool talk directly, inside the input; those of different pools
 * through the decisions {@link Decision#toPool} that the topology sends on the dependencies topic,
 * keyed by the receiving pool. A parent's pool that does not know the parent (never submitted, or
 * forgotten after its retention) answers that it is unknown, which no condition accepts: at once for a child of
 * its own pool (whose parent came first in the same partition), after {@link #AWAIT_UNKNOWN_PARENT_MS} for a child
 * of another pool, whose parent's submission may still be on its way.
 */
public final class Dependencies {

    /**
     * How long a pool awaits a parent it does not know when a child of another pool watches it: the parent's
     * submission may be on its way in another partition, as nothing orders two pools' inputs. A parent not
     * submitted by then is unknown to its children.
     */
    static final long AWAIT_UNKNOWN_PARENT_MS = 60_000;

    private final PoolModel m;
    private final Placement placement;
    /** Why this scheduler cancelled a task, while its children are told: "parent a failed (attempt 3 of 3)". */
    private final Map<String, String> cancelledBecause = new HashMap<>();

    Dependencies(PoolModel model, Placement placement) {
        this.m = model;
        this.placement = placement;
    }

    // ==== the child's side ========================================================================

    /** A new task with parents: BLOCKED until they end as it asks, and each parent's pool asked to watch it. */
    void block(TaskRecord task, Instant at, List<Decision> out) {
        TaskSubmitted s = task.getTask();
        int parents = s.getAfter().size();
        task.setState(TaskState.BLOCKED);
        task.setUnmetParents(parents);
        String reason = waitsFor(s, parents);
        task.setWaitingReason(reason);
        task.setWaitingSince(at);
        task.setUpdatedAt(at);
        m.store.putTask(task);
        m.blocked(+1);
        out.add(Decision.journal(new TaskBlocked(s.getTaskId(), reason, parents), null));
        for (Dependency d : s.getAfter()) {
            String parentPool = d.getPool() == null ? m.pool : d.getPool();
            ParentWatched watch = new ParentWatched(d.getTask(), parentPool, s.getTaskId(), m.pool, d.getWhen(), at);
            if (parentPool.equals(m.pool)) { // one pool: told directly
                watched(watch, out);
            } else {
                out.add(Decision.toPool(watch, parentPool));
            }
        }
    }

    /** A parent of another pool ended: its child here hears it (the input is journaled first). */
    List<Decision> heardFromPool(ParentEnded in) {
        List<Decision> out = new java.util.ArrayList<>(3);
        out.add(Decision.journal(in, null));
        ended(in, out);
        return out;
    }

    /**
     * A parent ended: its child, while still BLOCKED and hearing this parent for the first time, counts
     * one parent fewer (or is cancelled when the parent did not end as asked and it does not run anyway),
     * and enters its line once none is left. A child that ended meanwhile (cancelled) ignores it.
     */
    private void ended(ParentEnded e, List<Decision> out) {
        TaskRecord child = m.store.task(e.getChildId());
        if (child == null || child.getState() != TaskState.BLOCKED) {
            return;
        }
        DependencyStore deps = m.store.dependencies();
        if (!deps.heard(e.getChildId(), new DependencyStore.Heard(e.getParentPool(), e.getParentId(), e.getResult()))) {
            return; // this parent's end was heard already
        }
        Instant at = e.getAt();
        TaskSubmitted s = child.getTask();
        String parent = parentName(e.getParentId(), e.getParentPool(), m.pool);
        if (!met(e.getWhen(), e.getState()) && !s.getRunIfParentUnmet()) {
            String why = parent + " " + detailOr(e) + unlike(e.getWhen());
            m.blocked(-1);
            cancelledBecause.put(s.getTaskId(), why);
            m.finish(child, TaskState.CANCELLED, at);
            out.add(Decision.journal(new TaskCancelled(s.getTaskId(), TaskState.BLOCKED, why), null));
            return;
        }
        Integer counted = deps.unmet(s.getTaskId());
        int unmet = (counted != null ? counted : child.getUnmetParents()) - 1;
        if (unmet > 0) {
            deps.putUnmet(s.getTaskId(), unmet); // the record is rewritten once, at the release, not at each parent
            return;
        }
        m.blocked(-1);
        child.setUnmetParents(0);
        child.setUpdatedAt(at);
        child.setState(TaskState.WAITING);
        child.setWaitingReason(null);
        child.setWaitingSince(null);
        placement.admit(child, at, out);
    }

    // ==== the parent's side =======================================================================

    /** A child of another pool waits for a task here (the input is journaled first). */
    List<Decision> watchedFromPool(ParentWatched in) {
        List<Decision> out = new java.util.ArrayList<>(2);
        out.add(Decision.journal(in, null));
        watched(in, out);
        return out;
    }

    /**
     * A child waits for a task of this pool: told at once when the task has ended or is unknown here,
     * else kept among the task's children until it ends.
     */
    private void watched(ParentWatched w, List<Decision> out) {
        TaskRecord parent = m.store.task(w.getParentId());
        Child child = new Child(w.getChildPool(), w.getChildId(), w.getWhen());
        if (parent == null && !w.getChildPool().equals(m.pool)) {
            await(w.getParentId(), child, w.getAt());
            return;
        }
        if (parent == null || Retention.isFinished(parent.getState())) {
            tell(endOf(parent, w.getParentId(), child, w.getAt()), out);
            return;
        }
        m.store.dependencies().addChild(w.getParentId(), child);
        parent.setChildren(parent.getChildren() + 1);
        m.store.putTask(parent);
    }

    /** Keeps a child of another pool waiting for a parent this pool does not know yet, for a grace. */
    private void await(String parentId, Child child, Instant at) {
        DependencyStore deps = m.store.dependencies();
        deps.addChild(parentId, child);
        if (deps.awaitedUntil(parentId) == null) {
            deps.await(parentId, at.toEpochMilli() + AWAIT_UNKNOWN_PARENT_MS);
            m.awaitedParents().add(parentId);
            m.storeCounters();
        }
    }

    /** A task just submitted that children of other pools await: it takes them as its children. */
    void adopt(TaskRecord task) {
        List<String> awaited = m.awaitedParents();
        String id = task.getTask().getTaskId();
        if (awaited.isEmpty() || !awaited.contains(id)) {
            return;
        }
        DependencyStore deps = m.store.dependencies();
        task.setChildren(deps.children(id).size());
        deps.stopAwaiting(id);
        awaited.remove(id);
        m.storeCounters();
    }

    /** The awaited parents whose grace ended by {@code now} are unknown to their children, who are told so. */
    void expireAwaited(Instant now, List<Decision> out) {
        List<String> awaited = m.awaitedParents();
        if (awaited.isEmpty()) {
            return;
        }
        DependencyStore deps = m.store.dependencies();
        for (String id : List.copyOf(awaited)) {
            Long until = deps.awaitedUntil(id);
            if (until != null && until > now.toEpochMilli()) {
                continue;
            }
            for (Child child : deps.children(id)) {
                tell(endOf(null, id, child, now), out);
            }
            deps.dropChildren(id);
            deps.stopAwaiting(id);
            awaited.remove(id);
            m.storeCounters();
        }
    }

    /** When the first awaited parent's grace ends, in epoch milliseconds, or {@link Long#MAX_VALUE}. */
    long nextMillis() {
        long next = Long.MAX_VALUE;
        for (String id : m.awaitedParents()) {
            Long until = m.store.dependencies().awaitedUntil(id);
            next = Math.min(next, until == null ? Long.MAX_VALUE : until);
        }
        return next;
    }

    /**
     * Tells the children of every task that ended during this input how it ended, until no ending is
     * left (a cancelled child is a parent that ended too), then forgets those children.
     */
    void tellChildren(List<Decision> out) {
        while (!m.endedParents.isEmpty()) {
            TaskRecord parent = m.endedParents.poll();
            String id = parent.getTask().getTaskId();
            DependencyStore deps = m.store.dependencies();
            for (Child child : deps.children(id)) {
                tell(endOf(parent, id, child, parent.getUpdatedAt()), out);
            }
            deps.dropChildren(id);
        }
        cancelledBecause.clear();
    }

    private void tell(ParentEnded end, List<Decision> out) {
        if (end.getPool().equals(m.pool)) {
            ended(end, out);
        } else {
            out.add(Decision.toPool(end, end.getPool()));
        }
    }

    /** How {@code parent} ({@code null}: unknown here) ended, as its child is told. */
    private ParentEnded endOf(TaskRecord parent, String parentId, Child child, Instant at) {
        if (parent == null) {
            return new ParentEnded(parentId, m.pool, child.taskId(), child.pool(), child.when(), null,
                    "is unknown in pool " + m.pool + " (never submitted there, or forgotten after its retention)",
                    null, at);
        }
        TaskState state = parent.getState();
        return new ParentEnded(parentId, m.pool, child.taskId(), child.pool(), child.when(), state, detail(parent),
                state == TaskState.SUCCEEDED ? m.store.dependencies().result(parentId) : null, at);
    }

    /** How a finished task ended, in words: "succeeded", "failed (attempt 3 of 3): out of memory", "was cancelled". */
    private String detail(TaskRecord task) {
        return switch (task.getState()) {
            case SUCCEEDED -> "succeeded";
            case FAILED -> {
                List<AttemptRecord> attempts = task.getAttempts();
                String error = attempts.isEmpty() ? null : attempts.get(attempts.size() - 1).getError();
                yield "failed (attempt " + attempts.size() + " of " + RetryRule.of(task).maxAttempts() + ")"
                        + (error == null || error.isBlank() ? "" : ": " + firstLine(error));
            }
            case CANCELLED -> {
                String why = cancelledBecause.get(task.getTask().getTaskId());
                yield why == null ? "was cancelled" : "was cancelled because " + why;
            }
            case WAITING, ASSIGNED, RUNNING, BLOCKED -> "has not ended";
        };
    }

    // ==== words and rules =========================================================================

    /** Whether a parent that ended in {@code state} ({@code null}: unknown) meets the condition. */
    static boolean met(ParentCondition when, TaskState state) {
        if (state == null) {
            return false;
        }
        return switch (when) {
            case SUCCEEDED -> state == TaskState.SUCCEEDED;
            case FAILED -> state == TaskState.FAILED;
            case FINISHED -> Retention.isFinished(state);
        };
    }

    private static String detailOr(ParentEnded e) {
        return e.getDetail() != null ? e.getDetail() : e.getState() == null ? "is unknown" : e.getState().toString();
    }

    private static String unlike(ParentCondition when) {
        return switch (when) {
            case SUCCEEDED -> "";
            case FAILED -> ", and this task runs only after it fails";
            case FINISHED -> ", and this task runs only after it ends";
        };
    }

    /**
     * Why a blocked task with {@code unmet} parents still to end waits: "waits for parent a to succeed", or
     * "waits for 3 of its 5 parents to end as it asks". The record keeps the reason it got when it was blocked;
     * readers take the count from the store ({@link DependencyStore#unmet}) and say it with this.
     */
    public static String waitsFor(TaskSubmitted s, int unmet) {
        List<Dependency> after = s.getAfter();
        if (after.size() == 1) {
            Dependency d = after.get(0);
            return "waits for " + parentName(d.getTask(), d.getPool(), s.getPool()) + " to " + verb(d.getWhen());
        }
        return "waits for " + unmet + " of its " + after.size() + " parents to end as it asks";
    }

    private static String verb(ParentCondition when) {
        return switch (when) {
            case SUCCEEDED -> "succeed";
            case FAILED -> "fail";
            case FINISHED -> "end";
        };
    }

    private static String parentName(String id, String pool, String ownPool) {
        return pool == null || pool.equals(ownPool) ? "parent " + id : "parent " + id + " (pool " + pool + ")";
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        String line = nl < 0 ? text : text.substring(0, nl);
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
    }
}
