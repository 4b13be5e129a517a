package io.cronoq.agent;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.scheduler.testing.JournalTail;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * A {@link RunningScheduler} with what the agent's tests need around it: submitting and cancelling tasks, sending
 * raw worker events, the journal as it grows, and worker builders on the same topics.
 */
public final class SchedulerHarness implements AutoCloseable {

    private final RunningScheduler scheduler;
    private final Inputs inputs;
    private final JournalTail journal;

    private SchedulerHarness(RunningScheduler scheduler) {
        this.scheduler = scheduler;
        this.inputs = scheduler.inputs();
        this.journal = scheduler.journal();
    }

    /** Starts a scheduler with its own topics, application id and state directory. */
    public static SchedulerHarness start(KafkaBroker broker) {
        return start(broker, Credentials.none());
    }

    /** As above, with {@code credentials} checking worker registrations. */
    public static SchedulerHarness start(KafkaBroker broker, Credentials credentials) {
        return new SchedulerHarness(RunningScheduler.on(broker).name("agent").credentials(credentials).start());
    }

    public String bootstrap() {
        return scheduler.bootstrap();
    }

    public String prefix() {
        return scheduler.prefix();
    }

    /** A worker builder on this scheduler's topics, heartbeating every second. */
    public CronoqWorker.Builder worker(String id, String pool) {
        return CronoqWorker.builder().bootstrap(bootstrap()).topicPrefix(prefix()).id(id).pool(pool)
                .heartbeatInterval(Duration.ofSeconds(1)).registrationTimeout(Duration.ofSeconds(60));
    }

    /** Embedded executors on this scheduler's topics. */
    public EmbeddedExecutors.Builder embedded(String name) {
        return EmbeddedExecutors.builder().bootstrap(bootstrap()).topicPrefix(prefix()).name(name)
                .heartbeatInterval(Duration.ofSeconds(1)).registrationTimeout(Duration.ofSeconds(60));
    }

    public void submit(String taskId, String pool, Map<String, String> labels, String payload) {
        inputs.submit(taskId, pool, labels, payload);
    }

    /** Submits a task as given (keyed by its pool). */
    public void submit(TaskSubmitted task) {
        inputs.submit(task);
    }

    public void cancel(String taskId, String pool) {
        inputs.cancel(taskId, pool);
    }

    /** Sends a worker event (e.g. a twin's registration) as a worker would. */
    public void sendWorkerEvent(String pool, SpecificRecord event) {
        inputs.send(pool, event);
    }

    /** The journaled events of a type, in order. */
    public <T> List<T> journaled(Class<T> type) {
        return journal.events(type);
    }

    /** Waits until the attempt ended and returns how (the scheduler's decision). */
    public TaskFinished awaitFinished(String taskId, int attempt) {
        return journal.awaitFinished(taskId, attempt);
    }

    public TaskFinished finished(String taskId, int attempt) {
        return journal.finished(taskId, attempt);
    }

    /** The result the worker reported for a succeeded attempt, as text. */
    public String result(String taskId, int attempt) {
        return journal.result(taskId, attempt);
    }

    /** The failure the worker reported for an attempt, once journaled. */
    public AttemptFailed awaitFailure(String taskId, int attempt) {
        return journal.awaitFailure(taskId, attempt);
    }

    /** The assignments the scheduler made for a task, in order. */
    public List<AttemptAssigned> assignments(String taskId) {
        return journal.assignments(taskId);
    }

    @Override
    public void close() {
        journal.close();
        inputs.close();
        scheduler.close();
    }
}
