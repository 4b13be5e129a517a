package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrency keys and rate limits with real worker agents ({@code cronoq worker} processes, two
 * slots each), on a real broker. Each attempt is a shell command that takes a lock directory named
 * after its task's key ({@code mkdir}, which fails when another holder has it, and notes the
 * overlap), works for as long as its payload says and gives the lock back: so whether two holders
 * of a key ever ran at once is seen by the processes themselves, not only by the journal.
 * <ol>
 *   <li>Tasks sharing a key of max 1 run one at a time, while a task of another key and a later task
 *       with no key run beside them on the free slots (no head-of-line blocking).</li>
 *   <li>A rate limit of 2 per second with a burst of 1 spaces its tasks' assignments at least 500 ms
 *       apart, though slots are free.</li>
 *   <li>The agent running a key's holder is killed: once the scheduler evicts it, the key is given
 *       back exactly once, so the holder's retry and the key's next tasks all run, one at a time.</li>
 * </ol>
 */
// Alone: it bounds how long five paced assignments take (under 6 s), a time other classes running beside it would stretch.
@Isolated
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LimitWorkersTest {

    private static final Duration PROGRESS = Duration.ofSeconds(60);

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    @Test
    void keysRunTheirHoldersOneAtATimeRateLimitsSpaceAssignmentsAndAKilledHolderGivesItsKeyBackOnce()
            throws Exception {
        String run = broker.uniqueName("limits");
        String pool = run + "-pool";
        String bootstrap = broker.bootstrapServers();
        Path locks = Files.createDirectories(dir.resolve("locks"));
        SchedulerConfig config = ChaosRun.workerFaultConfig(bootstrap, run, dir.resolve("state"), 3_000);
        Map<String, Process> agents = new LinkedHashMap<>();
        try (SchedulerApp scheduler = SchedulerApp.start(config)) {
            ChaosRun.awaitRunning(scheduler, PROGRESS);
            Topics topics = scheduler.topics();
            try (JournalTail journal = JournalTail.start(bootstrap, topics);
                 KafkaProducer<String, SubmissionEvent> producer = new KafkaProducer<>(Map.of(
                         ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                         new StringSerializer(), topics.submissions().valueSerde().serializer())) {
                // Given the pool's rate limit api refills 2 units a second and holds 1,
                send(producer, topics, pool, new LimitSet(pool, LimitKind.RATE_LIMIT, "api", null, 2.0, 1, "test",
                        Instant.now()));
                // and two agents of two slots each.
                for (String id : List.of(run + "-a", run + "-b")) {
                    agents.put(id, AgentProcesses.start(bootstrap, run + ".", id, pool, Map.of(), 2, script(locks),
                            ChaosRun.logs().resolve(id + ".log")));
                }
                await("both agents are accepted").atMost(PROGRESS).until(() -> journal.all(WorkerAccepted.class,
                        w -> w.getWorkerId().startsWith(run)).size() == 2);

                keysRunOneAtATimeWithoutHoldingUpOthers(journal, producer, topics, pool);
                rateLimitSpacesAssignments(journal, producer, topics, pool);
                aKilledHolderGivesItsKeyBackOnce(journal, producer, topics, pool, agents);

                assertThat(locks.resolve("overlaps")).as("no two holders of a key ever ran at once").doesNotExist();
            }
        } finally {
            agents.values().forEach(Process::destroyForcibly);
        }
    }

    /** (a) Key A's three tasks run one at a time; B's first task and a later keyless task take the free slots meanwhile. */
    private void keysRunOneAtATimeWithoutHoldingUpOthers(JournalTail journal,
                                                                KafkaProducer<String, SubmissionEvent> producer,
                                                                Topics topics, String pool) throws Exception {
        for (String id : List.of("a-1", "a-2", "a-3")) {
            send(producer, topics, pool, task(pool, id, "A", 1, null, 15));
        }
        for (String id : List.of("b-1", "b-2")) {
            send(producer, topics, pool, task(pool, id, "B", 1, null, 15));
        }
        send(producer, topics, pool, task(pool, "n-1", null, null, null, 15));

        awaitSucceeded(journal, List.of("a-1", "a-2", "a-3", "b-1", "b-2", "n-1"));

        List<Object> events = journal.all(Object.class, e -> true);
        assertThat(mostHolding(events, "a-")).as("key A: one at a time").isEqualTo(1);
        assertThat(mostHolding(events, "b-")).as("key B: one at a time").isEqualTo(1);
        int a1Done = indexOf(events, TaskFinished.class, f -> f.getTaskId().equals("a-1"));
        for (String beside : List.of("b-1", "n-1")) {
            assertThat(indexOf(events, AttemptAssigned.class, a -> a.getTaskId().equals(beside)))
                    .as(beside + " runs beside a-1, though a-2, a-3 and b-2 wait before it in line").isLessThan(a1Done);
        }
        assertThat(indexOf(events, AttemptAssigned.class, a -> a.getTaskId().equals("a-2")))
                .as("a-2 starts only once a-1 gave the key back").isGreaterThan(a1Done);
        assertThat(running(events.subList(0, a1Done))).as("a slot stayed free while a-2 waited for its key")
                .isLessThan(4);
        assertThat(journal.all(TaskWaiting.class, w -> w.getTaskId().equals("a-2")))
                .anySatisfy(w -> assertThat(w.getReason()).startsWith("concurrency key A"));
    }

    /** (b) Five tasks of rate limit api (2/s, burst 1) on free slots: assigned at least 500 ms apart. */
    private void rateLimitSpacesAssignments(JournalTail journal, KafkaProducer<String, SubmissionEvent> producer,
                                                   Topics topics, String pool) throws Exception {
        List<String> ids = List.of("r-1", "r-2", "r-3", "r-4", "r-5");
        for (String id : ids) {
            send(producer, topics, pool, task(pool, id, null, null, "api", 1));
        }

        awaitSucceeded(journal, ids);

        List<Instant> assigned = journal.all(AttemptAssigned.class, a -> a.getTaskId().startsWith("r-")).stream()
                .map(AttemptAssigned::getAssignedAt).sorted().toList();
        assertThat(assigned).hasSize(5);
        for (int i = 1; i < assigned.size(); i++) {
            assertThat(Duration.between(assigned.get(i - 1), assigned.get(i)).toMillis())
                    .as("assignment " + i + " after the one before").isGreaterThanOrEqualTo(500);
        }
        assertThat(Duration.between(assigned.get(0), assigned.get(4)).toMillis()).as("no faster than 2 per second")
                .isGreaterThanOrEqualTo(2_000).as("and not held back beyond it").isLessThan(6_000);
        assertThat(journal.all(TaskWaiting.class, w -> w.getTaskId().startsWith("r-")))
                .anySatisfy(w -> assertThat(w.getReason()).startsWith("rate limit api"));
    }

    /**
     * (c) c-1 holds key C on an agent that is then killed; c-2 and c-3 wait for the key meanwhile (a keyless
     * task runs). Once the agent is evicted, c-1's retry, c-2 and c-3 all run, one at a time.
     */
    private void aKilledHolderGivesItsKeyBackOnce(JournalTail journal,
                                                         KafkaProducer<String, SubmissionEvent> producer,
                                                         Topics topics, String pool, Map<String, Process> agents)
            throws Exception {
        send(producer, topics, pool, task(pool, "c-1", "C", 1, null, 300));
        AttemptStarted holder = await("c-1 starts").atMost(PROGRESS).until(() -> journal.find(AttemptStarted.class,
                s -> s.getTaskId().equals("c-1")), Optional::isPresent).get();
        send(producer, topics, pool, task(pool, "c-2", "C", 1, null, 10));
        send(producer, topics, pool, task(pool, "c-3", "C", 1, null, 10));
        send(producer, topics, pool, task(pool, "n-2", null, null, null, 10));
        awaitSucceeded(journal, List.of("n-2"));
        assertThat(journal.find(AttemptAssigned.class, a -> a.getTaskId().equals("c-2") || a.getTaskId().equals("c-3")))
                .as("c-2 and c-3 wait while c-1 holds the key, though slots are free").isEmpty();

        agents.get(holder.getWorkerId()).destroyForcibly().waitFor(10, TimeUnit.SECONDS);

        awaitSucceeded(journal, List.of("c-1", "c-2", "c-3"));
        List<Object> events = journal.all(Object.class, e -> true);
        int lost = indexOf(events, TaskFinished.class, f -> f.getTaskId().equals("c-1") && f.getAttempt() == 1);
        TaskFinished first = (TaskFinished) events.get(lost);
        assertThat(first.getState()).as("c-1 waits again after its agent is gone").isEqualTo(TaskState.WAITING);
        assertThat(indexOf(events, AttemptAssigned.class, a -> a.getTaskId().equals("c-2"))).isGreaterThan(lost);
        assertThat(indexOf(events, AttemptAssigned.class, a -> a.getTaskId().equals("c-3"))).isGreaterThan(lost);
        assertThat(journal.find(TaskFinished.class, f -> f.getTaskId().equals("c-1") && f.getState() == TaskState.SUCCEEDED))
                .get().extracting(TaskFinished::getAttempt).isEqualTo(2);
        assertThat(mostHolding(events, "c-")).as("key C given back once: never two holders at once").isEqualTo(1);
    }

    /**
     * Works as the task's payload {@code KEY TENTHS} says: takes the lock of KEY ({@code -}: none) or notes an
     * overlap, works TENTHS tenths of a second (a tenth on a retry) while its agent lives, and gives the lock back.
     */
    private static String script(Path locks) {
        return "read k t; d='" + locks + "'; [ \"$CRONOQ_ATTEMPT\" -gt 1 ] && t=10; "
                + "if [ \"$k\" != - ]; then mkdir \"$d/$k\" 2>/dev/null "
                + "|| { echo \"$k $CRONOQ_TASK_ID\" >> \"$d/overlaps\"; exit 3; }; fi; "
                + "n=0; while [ $n -lt \"$t\" ] && kill -0 $PPID 2>/dev/null; do sleep 0.1; n=$((n+1)); done; "
                + "if [ \"$k\" != - ]; then rmdir \"$d/$k\"; fi";
    }

    /** Waits until every one of {@code ids} succeeded; fails at once when two holders of a key ran at once. */
    private void awaitSucceeded(JournalTail journal, List<String> ids) {
        Path overlaps = dir.resolve("locks").resolve("overlaps");
        await(ids + " succeed").atMost(PROGRESS)
                .failFast("two holders of a key ran at once (see " + overlaps + ")", () -> Files.exists(overlaps))
                .until(() -> ids.stream().allMatch(id -> journal.find(TaskFinished.class,
                        f -> f.getTaskId().equals(id) && f.getState() == TaskState.SUCCEEDED).isPresent()));
    }

    /** The most attempts of tasks whose id starts with {@code prefix} assigned and not yet finished at once, in journal order. */
    private static int mostHolding(List<Object> events, String prefix) {
        Set<String> holding = new HashSet<>();
        int most = 0;
        for (Object event : events) {
            if (event instanceof AttemptAssigned a && a.getTaskId().startsWith(prefix)) {
                holding.add(a.getTaskId());
                most = Math.max(most, holding.size());
            } else if (event instanceof TaskFinished f && f.getTaskId().startsWith(prefix)) {
                holding.remove(f.getTaskId());
            }
        }
        return most;
    }

    /** The most attempts assigned and not yet finished at once in {@code events}. */
    private static int running(List<Object> events) {
        return mostHolding(events, "");
    }

    /** The index in {@code events} of the first of this type that matches. */
    private static <T> int indexOf(List<Object> events, Class<T> type, java.util.function.Predicate<T> which) {
        for (int i = 0; i < events.size(); i++) {
            if (type.isInstance(events.get(i)) && which.test(type.cast(events.get(i)))) {
                return i;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " as expected in the journal");
    }

    private static void send(KafkaProducer<String, SubmissionEvent> producer, Topics topics, String pool,
                             SpecificRecord event) throws Exception {
        producer.send(new ProducerRecord<>(topics.submissions().name(), pool, new SubmissionEvent(event))).get();
    }

    /** Task {@code id} holding {@code key} (max {@code max}) or none, taking a unit of {@code rate} or none, working {@code tenths}. */
    private static TaskSubmitted task(String pool, String id, String key, Integer max, String rate, int tenths) {
        String payload = (key == null ? "-" : key) + " " + tenths;
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(pool).setLabels(new HashMap<>())
                .setPayload(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)))
                .setConcurrency(key == null ? new ArrayList<>() : new ArrayList<>(List.of(new ConcurrencyKey(key, max))))
                .setRateLimits(rate == null ? new ArrayList<>() : new ArrayList<>(List.of(new RateLimitUse(rate, 1))))
                .setRetry(RetryPolicy.newBuilder().setMaxAttempts(3).setInitialBackoffMs(100).build())
                .setSubmittedAt(Instant.now()).build();
    }
}
