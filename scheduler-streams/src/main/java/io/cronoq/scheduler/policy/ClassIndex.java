package io.cronoq.scheduler.policy;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The requirement classes of one pool over its {@link WaitingQueue}: every change to a line goes
 * to the queue, and the count and head of each line are kept here in memory. Taking a head or
 * removing a task costs one queue lookup for the new head, whatever the size of the backlog.
 */
final class ClassIndex {

    private final WaitingQueue queue;
    private final Map<String, WaitClass> classes = new HashMap<>();
    private long waiting;

    ClassIndex(WaitingQueue queue) {
        this.queue = queue;
    }

    WaitClass get(String key) {
        return classes.get(key);
    }

    /** Registers a new class; {@link Groups} links it to the groups that can serve it. */
    WaitClass create(LabelSet labels) {
        WaitClass c = new WaitClass(labels);
        classes.put(labels.key(), c);
        return c;
    }

    Collection<WaitClass> all() {
        return classes.values();
    }

    /** Tasks waiting in all classes. */
    long waiting() {
        return waiting;
    }

    /** Reads a class's count and head back from the queue (when the scheduler loads). */
    void load(WaitClass c, long count) {
        waiting += count - c.count;
        c.count = count;
        refreshHead(c);
    }

    void add(WaitClass c, long order, String taskId) {
        queue.add(new WaitingQueue.Entry(c.key(), order, taskId));
        if (c.count == 0 || order < c.headOrder) {
            c.headOrder = order;
            c.headTaskId = taskId;
        }
        c.count++;
        waiting++;
    }

    /** Removes the head of a non-empty class's line and returns its task id. */
    String takeHead(WaitClass c) {
        String taskId = c.headTaskId;
        queue.remove(c.key(), c.headOrder);
        c.count--;
        waiting--;
        refreshHead(c);
        return taskId;
    }

    /** Removes one waiting task (cancelled) from its class's line. */
    void remove(WaitClass c, long order) {
        queue.remove(c.key(), order);
        c.count--;
        waiting--;
        if (order == c.headOrder) {
            refreshHead(c);
        }
    }

    private void refreshHead(WaitClass c) {
        WaitingQueue.Entry head = c.count > 0 ? queue.first(c.key()) : null;
        if (head == null) {
            waiting -= c.count; // only when the queue lost entries behind our back
            c.count = 0;
            c.headOrder = 0;
            c.headTaskId = null;
        } else {
            c.headOrder = head.order();
            c.headTaskId = head.taskId();
        }
    }
}
