package io.cronoq.gateway;

import io.cronoq.events.Dependency;
import io.cronoq.events.TaskSubmitted;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The parents a submission names, checked before anything is written: each must be a task the scheduler knows (a
 * child never waits on a name that no task will ever have), and each gets its pool written down, as looked up, so
 * the scheduler tells the right pool. Parents named inside the same workflow are not looked up: they are sent first.
 */
final class Parents {

    private Parents() {}

    /**
     * Looks up every parent of {@code task} except those in {@code sentWithIt} (ids of the same pool written in the
     * same request, before it) and fills in its pool; 400 on {@code after[i].task} for one no instance knows.
     */
    static void resolve(TaskSubmitted task, StateReader cluster, Set<String> sentWithIt, String fieldPrefix) {
        List<Dependency> after = task.getAfter();
        for (int i = 0; i < after.size(); i++) {
            Dependency d = after.get(i);
            if (d.getPool() == null && sentWithIt.contains(d.getTask())) {
                continue;
            }
            Optional<TaskView> parent = cluster.task(d.getTask(), d.getPool());
            String field = fieldPrefix + "after[" + i + "].task";
            if (parent.isEmpty()) {
                throw ApiException.invalid(field, "no task " + d.getTask()
                        + (d.getPool() == null ? "" : " in pool " + d.getPool()) + "; a parent must be submitted before "
                        + "its children (a finished one is kept for cronoq.task.retention.ms), or in the same workflow");
            }
            d.setPool(parent.get().pool());
        }
    }
}
