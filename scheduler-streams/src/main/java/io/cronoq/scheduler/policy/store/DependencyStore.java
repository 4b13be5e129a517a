package io.cronoq.scheduler.policy.store;

import io.cronoq.events.ParentCondition;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * What one pool keeps of its tasks' dependencies, outside the task records so the hot record stays
 * small: which children (in any pool) wait for each of its tasks, the result each task returned with
 * its success, and the parents' ends (with their results) each of its blocked tasks heard. All of it
 * belongs to one task and is forgotten with it.
 */
public interface DependencyStore {

    /** A task that waits for a parent of this pool: its pool, its id, and how it wants the parent to end. */
    record Child(String pool, String taskId, ParentCondition when) {}

    /** A parent's end as a child heard it: the parent's pool and id, and its result ({@code null}: none). */
    record Heard(String parentPool, String parentId, ByteBuffer result) {}

    /** {@code child} waits for {@code parentId}; naming the same child twice keeps one entry. */
    void addChild(String parentId, Child child);

    /** The children that wait for {@code parentId}, in key order (empty when none). */
    List<Child> children(String parentId);

    /** Forgets the children of {@code parentId}: they were told how it ended. */
    void dropChildren(String parentId);

    /** The result {@code taskId} returned with its success. */
    void putResult(String taskId, ByteBuffer result);

    /** The result {@code taskId} returned with its success, or {@code null}. */
    ByteBuffer result(String taskId);

    /**
     * Notes that {@code childId} heard how a parent ended, with its result: {@code true} the first time,
     * {@code false} when this parent's end was heard already (and nothing changes).
     */
    boolean heard(String childId, Heard parent);

    /** The parents' ends {@code childId} heard, in key order. */
    List<Heard> heard(String childId);

    /** The results of the parents {@code childId} heard, by parent id (parents that returned none are left out). */
    default Map<String, ByteBuffer> parentResults(String childId) {
        Map<String, ByteBuffer> results = new java.util.LinkedHashMap<>();
        for (Heard h : heard(childId)) {
            if (h.result() != null) {
                results.put(h.parentId(), h.result());
            }
        }
        return results;
    }

    /**
     * How many parents blocked task {@code childId} still waits for, once one of them ended ({@code null} before:
     * its record's count holds). Kept here, not in the task's record, so a reduce over thousands of parents does
     * not rewrite its large record at each parent's end.
     */
    Integer unmet(String childId);

    /** Sets {@link #unmet}. */
    void putUnmet(String childId, int unmet);

    /** Awaits {@code parentId}, unknown here yet, until {@code deadlineMillis} (its children are kept meanwhile). */
    void await(String parentId, long deadlineMillis);

    /** Until when {@code parentId} is awaited, or {@code null} when it is not. */
    Long awaitedUntil(String parentId);

    /** {@code parentId} is awaited no more: it came, or its wait ended. */
    void stopAwaiting(String parentId);

    /** Forgets everything kept of {@code taskId}: its children, its result, its parents' ends. */
    void forget(String taskId);
}
