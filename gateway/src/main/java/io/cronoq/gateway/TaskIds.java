package io.cronoq.gateway;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A task is its pool and its id: two pools may each have a task {@code x}. Asked for {@code x}
 * without a pool, the gateway answers only when one pool has it, and otherwise says which pools do,
 * rather than pick one of them.
 */
final class TaskIds {

    private TaskIds() {}

    /**
     * The one task found, empty for none, and a 400 naming the pools when several pools use the id.
     *
     * @throws ApiException {@code INVALID_ARGUMENT} on the field {@code pool}
     */
    static Optional<TaskView> onlyOne(String id, List<TaskView> found) {
        if (found.size() <= 1) {
            return found.stream().findFirst();
        }
        String pools = found.stream().map(TaskView::pool).sorted().distinct().collect(Collectors.joining(", "));
        throw ApiException.invalid("pool", "task id " + id + " is used in pools " + pools
                + ": name the pool, e.g. ?pool=" + found.get(0).pool());
    }
}
