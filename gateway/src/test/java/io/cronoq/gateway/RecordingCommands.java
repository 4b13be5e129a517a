package io.cronoq.gateway;

import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Commands that keep every event the routes wrote, in order, for the test to read; nothing leaves the JVM. */
final class RecordingCommands implements Commands {

    final List<TaskSubmitted> submitted = new CopyOnWriteArrayList<>();
    final List<TaskCancelRequested> cancelled = new CopyOnWriteArrayList<>();
    final List<WorkerDraining> drained = new CopyOnWriteArrayList<>();

    @Override
    public void submit(TaskSubmitted task) {
        submitted.add(task);
    }

    @Override
    public void cancel(TaskCancelRequested cancel) {
        cancelled.add(cancel);
    }

    @Override
    public void drain(WorkerDraining drain) {
        drained.add(drain);
    }
}
