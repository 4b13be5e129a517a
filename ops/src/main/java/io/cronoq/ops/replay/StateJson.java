package io.cronoq.ops.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;

/** Prints a {@link StateAt} as one JSON document, for scripts: {@code at}, {@code pools}, {@code groups}, {@code queues}. */
final class StateJson {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private StateJson() {}

    static void write(StateAt state, PrintWriter out) {
        ObjectNode root = JSON.createObjectNode();
        root.put("at", state.at().toString());
        ArrayNode pools = root.putArray("pools");
        for (StateAt.Pool p : state.pools()) {
            ObjectNode pool = pools.addObject();
            pool.put("pool", p.pool());
            putSlots(pool, p.workers(), p.capacity(), p.busy());
            pool.put("waiting", p.waiting());
            ObjectNode tasks = pool.putObject("tasks");
            p.tasks().forEach((state1, n) -> tasks.put(state1.toString(), n));
        }
        ArrayNode groups = root.putArray("groups");
        for (StateAt.GroupAt g : state.groups()) {
            ObjectNode group = groups.addObject();
            group.put("pool", g.pool());
            group.set("labels", TimelineJsonLines.labels(g.labels()));
            putSlots(group, g.workers(), g.capacity(), g.busy());
            group.put("drainingBusy", g.drainingBusy());
            group.put("waiting", g.waiting());
        }
        ObjectNode queues = root.putObject("queues");
        state.queues().forEach((poolName, queued) -> {
            ArrayNode queue = queues.putArray(poolName);
            for (StateAt.Queued q : queued) {
                ObjectNode task = queue.addObject();
                task.put("taskId", q.taskId());
                task.set("labels", TimelineJsonLines.labels(q.labels()));
                task.put("attempts", q.attempts());
                task.put("since", TimelineJsonLines.time(q.since()));
                task.put("waitedMs", q.waitedMs());
                task.put("reason", q.reason());
            }
        });
        out.println(JsonText.of(JSON, root));
        out.flush();
    }

    /** The slot figures a pool and a group both have, in this order. */
    private static void putSlots(ObjectNode node, int workers, int capacity, int busy) {
        node.put("workers", workers);
        node.put("capacity", capacity);
        node.put("busy", busy);
    }
}
