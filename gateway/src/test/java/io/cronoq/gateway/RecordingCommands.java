package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.GangSubmitted;
import io.cronoq.events.LimitSet;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.avro.specific.SpecificRecord;

/**
 * Commands for gateways under test: nothing leaves the JVM. They keep every event the routes wrote, in order, for
 * the test to read, or ({@link #refusing()}) refuse every write.
 */
final class RecordingCommands implements Commands {

    private final List<SpecificRecord> written = new CopyOnWriteArrayList<>();
    private final boolean refusing;

    /** Commands that keep what is written. */
    RecordingCommands() {
        this(false);
    }

    private RecordingCommands(boolean refusing) {
        this.refusing = refusing;
    }

    /** Commands that throw on every write: the gateway writes nothing. */
    static RecordingCommands refusing() {
        return new RecordingCommands(true);
    }

    /** The events of a type written so far, in order: submissions of tasks and gangs, cancels, drains, sharing policies or limits. */
    <T extends SpecificRecord> List<T> written(Class<T> type) {
        return written.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The one event of a type written so far; fails unless there is exactly one. */
    <T extends SpecificRecord> T only(Class<T> type) {
        List<T> events = written(type);
        assertThat(events).as(type.getSimpleName() + " written").hasSize(1);
        return events.get(0);
    }

    @Override
    public void submit(TaskSubmitted task) {
        write(task);
    }

    @Override
    public void submitAll(List<TaskSubmitted> tasks) {
        tasks.forEach(this::write);
    }

    @Override
    public void submitGang(GangSubmitted gang) {
        write(gang);
    }

    @Override
    public void cancel(TaskCancelRequested cancel) {
        write(cancel);
    }

    @Override
    public void drain(WorkerDraining drain) {
        write(drain);
    }

    @Override
    public void share(SharingPolicySet policy) {
        write(policy);
    }

    @Override
    public void limit(LimitSet limit) {
        write(limit);
    }

    private void write(SpecificRecord event) {
        if (refusing) {
            throw new IllegalStateException("this test gateway writes nothing");
        }
        written.add(event);
    }
}
