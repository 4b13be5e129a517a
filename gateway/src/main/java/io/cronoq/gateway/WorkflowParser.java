package io.cronoq.gateway;

import static io.cronoq.gateway.BodyFields.closed;
import static io.cronoq.gateway.BodyFields.read;
import static io.cronoq.gateway.BodyFields.requiredText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.events.Dependency;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.Rules;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads the body of {@code POST /v1/workflows}: {@code {"pool", "id", "tasks": [...]}}, where each task is a task's
 * body (as {@code POST /v1/tasks} takes it, without {@code pool}) whose {@code id} is its name in the workflow and
 * whose {@code after} names parents in the workflow by that name (or earlier tasks by their ids). Each task's id
 * becomes {@code <workflow>:<name>}. Duplicate names and cycles are 400s naming them; the tasks come back in an order
 * where every parent comes before its children, so the scheduler always knows a parent before its child names it.
 */
final class WorkflowParser {

    /** The most tasks one workflow holds: a fan-out of ten thousand shards and its stages around them. */
    static final int MAX_TASKS = 20_000;
    static final List<String> FIELDS = List.of("pool", "id", "tasks");

    private final SubmissionParser tasks;

    WorkflowParser(Supplier<Instant> clock) {
        this.tasks = new SubmissionParser(clock);
    }

    /** A workflow's tasks, parents first, each checked as a task's body is. */
    record Workflow(String pool, String id, List<TaskSubmitted> tasks) {}

    /** The id of the task named {@code name} in workflow {@code workflow}. */
    static String taskId(String workflow, String name) {
        return workflow + ":" + name;
    }

    Workflow parse(byte[] body, String credential) {
        BodyFields.required(body, "\"pool\", \"id\" and \"tasks\"",
                "{\"pool\":\"default\",\"id\":\"etl-1\",\"tasks\":[{\"id\":\"extract\"},{\"id\":\"load\",\"after\":[\"extract\"]}]}");
        JsonNode root = JsonBody.read(body);
        if (root == null || !root.isObject()) {
            throw ApiException.invalid("body", "the body must be a JSON object with \"pool\", \"id\" and \"tasks\"");
        }
        closed(root, "", FIELDS, "a workflow");
        String pool = read("pool", () -> requiredText(root, "pool"));
        Rules.pool(pool).ifPresent(v -> {
            throw ApiException.invalid("pool", v.message());
        });
        String id = read("id", () -> requiredText(root, "id"));
        Rules.id("id", id).ifPresent(v -> {
            throw ApiException.invalid("id", v.message());
        });
        JsonNode list = root.get("tasks");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw ApiException.invalid("tasks", "tasks must be a non-empty array of task bodies, each with its \"id\" "
                    + "(its name in the workflow)");
        }
        if (list.size() > MAX_TASKS) {
            throw ApiException.invalid("tasks", list.size() + " tasks; a workflow holds at most " + MAX_TASKS);
        }
        Map<String, Integer> index = new LinkedHashMap<>();
        List<TaskSubmitted> parsed = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String field = "tasks[" + i + "]";
            JsonNode node = list.get(i);
            if (!node.isObject()) {
                throw ApiException.invalid(field, field + " must be a task's body, an object with at least \"id\"");
            }
            if (node.has("pool")) {
                throw ApiException.invalid(field + ".pool", field + ".pool is the workflow's; leave it out");
            }
            String name = BodyFields.text(node.get("id"), field + ".id").orElseThrow(() -> ApiException.invalid(
                    field + ".id", field + ".id is required: the task's name in the workflow, which children name in after"));
            if (index.putIfAbsent(name, i) != null) {
                throw ApiException.invalid(field + ".id", "two tasks are named " + name + " (tasks[" + index.get(name)
                        + "] and " + field + "); names in a workflow are unique");
            }
            ObjectNode copy = ((ObjectNode) node).deepCopy();
            copy.put("pool", pool);
            copy.put("id", taskId(id, name));
            TaskSubmitted task = GangMembers.within(field, () -> tasks.parse(copy, credential));
            task.setWorkflow(id);
            parsed.add(task);
        }
        // Parents named inside the workflow get their task ids; the rest are looked up when submitted.
        List<List<Integer>> children = new ArrayList<>(parsed.size());
        int[] inside = new int[parsed.size()];
        for (int i = 0; i < parsed.size(); i++) {
            children.add(new ArrayList<>());
        }
        for (int i = 0; i < parsed.size(); i++) {
            for (Dependency d : parsed.get(i).getAfter()) {
                Integer parent = d.getPool() == null || d.getPool().equals(pool) ? index.get(d.getTask()) : null;
                if (parent != null) {
                    if (parent == i) {
                        throw ApiException.invalid("tasks[" + i + "].after", "task " + d.getTask()
                                + " names itself as its parent; a task cannot wait for itself");
                    }
                    d.setTask(taskId(id, d.getTask()));
                    d.setPool(null);
                    children.get(parent).add(i);
                    inside[i]++;
                }
            }
        }
        return new Workflow(pool, id, parentsFirst(parsed, children, inside, index));
    }

    /** The tasks in an order where each comes after its parents in the workflow; a cycle is a 400 naming it. */
    private static List<TaskSubmitted> parentsFirst(List<TaskSubmitted> tasks, List<List<Integer>> children, int[] inside,
                                                    Map<String, Integer> index) {
        int[] unmet = inside.clone();
        Deque<Integer> ready = new ArrayDeque<>();
        for (int i = 0; i < tasks.size(); i++) {
            if (unmet[i] == 0) {
                ready.add(i);
            }
        }
        List<TaskSubmitted> ordered = new ArrayList<>(tasks.size());
        while (!ready.isEmpty()) {
            int i = ready.poll();
            ordered.add(tasks.get(i));
            for (int child : children.get(i)) {
                if (--unmet[child] == 0) {
                    ready.add(child);
                }
            }
        }
        if (ordered.size() < tasks.size()) {
            throw ApiException.invalid("tasks", "the tasks " + cycle(unmet, children, index) + " form a cycle: each waits "
                    + "for the one after it, so none would ever start");
        }
        return ordered;
    }

    /** One cycle among the tasks left with unmet parents, by name, each waiting for the next: "a → b → c → a". */
    private static String cycle(int[] unmet, List<List<Integer>> children, Map<String, Integer> index) {
        String[] names = new String[unmet.length];
        index.forEach((name, i) -> names[i] = name);
        List<List<Integer>> parents = new ArrayList<>(unmet.length);
        for (int i = 0; i < unmet.length; i++) {
            parents.add(new ArrayList<>());
        }
        for (int i = 0; i < unmet.length; i++) {
            for (int child : children.get(i)) {
                parents.get(child).add(i);
            }
        }
        // A task left waiting has a parent left waiting: walk parent to parent until one repeats.
        int at = 0;
        while (unmet[at] == 0) {
            at++;
        }
        Map<Integer, Integer> seenAt = new HashMap<>();
        List<Integer> path = new ArrayList<>();
        while (!seenAt.containsKey(at)) {
            seenAt.put(at, path.size());
            path.add(at);
            for (int parent : parents.get(at)) {
                if (unmet[parent] > 0) {
                    at = parent;
                    break;
                }
            }
        }
        StringBuilder text = new StringBuilder();
        for (int k = seenAt.get(at); k < path.size(); k++) {
            text.append(names[path.get(k)]).append(" → ");
        }
        return text.append(names[at]).toString();
    }
}
