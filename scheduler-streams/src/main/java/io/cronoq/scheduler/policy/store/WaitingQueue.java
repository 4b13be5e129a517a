package io.cronoq.scheduler.policy.store;

import java.util.List;
import java.util.Map;

/**
 * Waiting tasks of one pool, kept per line (requirement class, tenant, limits) in ascending
 * {@link Place} order. The policy itself keeps only the lines' heads and counts; the lines are the
 * store's (the topology derives them from the task records and keeps them beside its tasks store).
 */
public interface WaitingQueue {

    /** One waiting task: its class, its place in line within the class, and its id. */
    record Entry(String classKey, Place place, String taskId) {}

    void add(Entry entry);

    void remove(String classKey, Place place);

    /** The entry with the lowest place in the class, or {@code null} when the class has none. */
    Entry first(String classKey);

    /** The first {@code max} entries of the class in place order (fewer when it holds fewer). */
    List<Entry> first(String classKey, int max);

    /** The number of waiting tasks per class that has any (read once when the scheduler loads). */
    Map<String, Long> counts();
}
