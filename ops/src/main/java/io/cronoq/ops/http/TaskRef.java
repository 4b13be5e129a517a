package io.cronoq.ops.http;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The task a command names (a picocli mixin): its id and, when two pools use the id, its pool. */
final class TaskRef {

    @Parameters(index = "0", paramLabel = "TASK_ID", description = "The task's id.")
    String taskId;

    @Option(names = "--pool", paramLabel = "POOL", description = "The task's pool: needed when two pools use the id; "
            + "otherwise optional (it routes straight to the owner).")
    String pool;

    /** The task's gateway path, {@code /v1/tasks/<id>}. */
    String path() {
        return "/v1/tasks/" + Query.encode(taskId);
    }

    /** The query naming the pool, when given. */
    Query query() {
        return new Query().add("pool", pool);
    }
}
