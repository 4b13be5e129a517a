package io.cronoq.gateway;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A workflow as {@code GET /v1/workflows/{id}} shows it: its state as a whole, how many of its tasks are in each
 * state, and every task (as {@code GET /v1/tasks/{id}} shows it), parents before their children.
 *
 * @param state  while any task has not ended, {@code RUNNING} (one holds a slot), {@code WAITING} (one waits for a
 *               slot) or {@code BLOCKED} (all wait for parents); once all ended, {@code FAILED} if one failed,
 *               {@code SUCCEEDED} if every other one succeeded or was skipped (cancelled because a parent it
 *               waited to fail succeeded, or below such a task: a branch not taken), else {@code CANCELLED}
 * @param counts how many tasks are in each state, by state
 */
public record WorkflowView(String id, String pool, String state, Map<String, Integer> counts, List<TaskView> tasks) {

    static WorkflowView of(String id, String pool, List<TaskView> tasks) {
        Map<String, Integer> counts = new TreeMap<>();
        tasks.forEach(t -> counts.merge(t.state(), 1, Integer::sum));
        List<TaskView> ordered = parentsFirst(tasks);
        return new WorkflowView(id, pool, stateOf(counts, ordered), counts, ordered);
    }

    private static String stateOf(Map<String, Integer> counts, List<TaskView> parentsFirst) {
        for (String live : List.of("RUNNING", "ASSIGNED", "WAITING", "BLOCKED")) {
            if (counts.containsKey(live)) {
                return live.equals("ASSIGNED") ? "RUNNING" : live;
            }
        }
        if (counts.containsKey("FAILED")) {
            return "FAILED";
        }
        Map<String, TaskView> byId = new HashMap<>();
        parentsFirst.forEach(t -> byId.put(t.id(), t));
        java.util.Set<String> skipped = new java.util.HashSet<>();
        for (TaskView t : parentsFirst) { // parents first: a parent's verdict is known before its children's
            if (skipped(t, byId, skipped)) {
                skipped.add(t.id());
            } else if (!t.state().equals("SUCCEEDED")) {
                return "CANCELLED";
            }
        }
        return "SUCCEEDED";
    }

    /**
     * Whether a cancelled task was a branch not taken: a parent it waited to fail succeeded, or a parent it waited
     * on ({@code skipped}, decided before it) was such a branch. With no task failed, nothing else but a cancel
     * request cancels a task of a workflow.
     */
    private static boolean skipped(TaskView task, Map<String, TaskView> byId, java.util.Set<String> skipped) {
        if (!task.state().equals("CANCELLED")) {
            return false;
        }
        for (TaskView.ParentView p : task.after()) {
            TaskView parent = byId.get(p.task());
            if (parent != null && (p.when().equals("failed") && parent.state().equals("SUCCEEDED")
                    || !p.when().equals("finished") && skipped.contains(parent.id()))) {
                return true;
            }
        }
        return false;
    }

    /** The tasks with every parent in the workflow before its children; among the ready ones, by id. */
    private static List<TaskView> parentsFirst(List<TaskView> tasks) {
        Map<String, TaskView> byId = new LinkedHashMap<>();
        tasks.stream().sorted(Comparator.comparing(TaskView::id)).forEach(t -> byId.put(t.id(), t));
        Map<String, List<String>> children = new HashMap<>();
        Map<String, Integer> unmet = new HashMap<>();
        for (TaskView t : byId.values()) {
            int inside = 0;
            for (TaskView.ParentView p : t.after()) {
                if (byId.containsKey(p.task()) && p.pool().equals(t.pool())) {
                    children.computeIfAbsent(p.task(), k -> new ArrayList<>()).add(t.id());
                    inside++;
                }
            }
            unmet.put(t.id(), inside);
        }
        Deque<String> ready = new ArrayDeque<>();
        byId.keySet().stream().filter(id -> unmet.get(id) == 0).forEach(ready::add);
        List<TaskView> ordered = new ArrayList<>(tasks.size());
        while (!ready.isEmpty()) {
            String id = ready.poll();
            ordered.add(byId.get(id));
            for (String child : children.getOrDefault(id, List.of())) {
                if (unmet.merge(child, -1, Integer::sum) == 0) {
                    ready.add(child);
                }
            }
        }
        return ordered;
    }
}
