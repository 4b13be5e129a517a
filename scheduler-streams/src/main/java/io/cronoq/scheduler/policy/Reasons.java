package io.cronoq.scheduler.policy;

/**
 * Why a task waits, in words an operator can act on (journaled in {@code TaskWaiting} and kept in
 * the task's record). Built from the class's in-memory links only, never from the backlog.
 */
final class Reasons {

    private Reasons() {}

    static String waiting(String pool, WaitClass c) {
        int groups = c.groups.size();
        String wanted = c.key().isEmpty() ? null : c.key();
        if (groups == 0) {
            return wanted == null
                    ? "no worker in pool " + pool
                    : "no worker has " + wanted;
        }
        String matching = groups == 1 ? "the 1 matching group" : "the " + groups + " matching groups";
        if (c.capacity == 0) {
            return "no active worker in " + matching + " (all draining)";
        }
        return "all " + c.capacity + (c.capacity == 1 ? " slot of " : " slots of ") + matching + " busy";
    }
}
