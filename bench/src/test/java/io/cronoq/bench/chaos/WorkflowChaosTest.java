package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.bench.SchedulerProcess;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Dependency;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.Priority;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A three-stage fan-out and fan-in (1 → 100 → 1) on a real broker, run by {@code cronoq worker} processes, with the
 * stages in two pools owned by two scheduler instances in child JVMs: the source and the reducer in one pool, the
 * hundred shards in the other, so every watch and every parent's end crosses between instances on the dependencies
 * topic. Mid-workflow the instance that owns the shards' pool is killed hard (SIGKILL); the other takes the pool over.
 * Every task runs once (each process appends its task id to a file), the reducer reads its hundred parents' results
 * from the file {@code CRONOQ_PARENT_RESULTS} names, and sums them.
 */
@Tag("integration")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WorkflowChaosTest {

    private static final Logger log = LoggerFactory.getLogger(WorkflowChaosTest.class);
    private static final int PARTITIONS = 4;
    private static final int SHARDS = 100;
    private static final Duration PROGRESS = Duration.ofSeconds(90);

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    @Test
    void aFanOutAndFanInAcrossInstancesRunsEachStageOnceThroughAKilledOwner() throws Exception {
        String run = "workflow-" + UUID.randomUUID().toString().substring(0, 6);
        String bootstrap = broker.bootstrapServers();
        SchedulerConfig config = ChaosRun.config(bootstrap, run, dir.resolve("state-setup"), PARTITIONS,
                Map.of(SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "60000"));
        SchemaRegistry registry = SchedulerApp.registry(config);
        Topics topics = ChaosRun.topics(config, registry);
        List<String> pools = ChaosRun.poolsOnPartitionsOfTheirOwn(run, PARTITIONS);
        Path runs = dir.resolve("runs.log");
        // Every process notes its task once it started; a shard answers its number, the reducer the sum it read.
        String script = "echo \"$CRONOQ_TASK_ID\" >> " + runs + "; "
                + "case \"$CRONOQ_TASK_ID\" in "
                + "*:shard-*) sleep 0.3; printf %s \"${CRONOQ_TASK_ID##*-}\" ;; "
                + "*:reduce) grep -o '\"[0-9]*\"' \"$CRONOQ_PARENT_RESULTS\" | tr -d '\"' | "
                + "awk '{s+=$1; n++} END {print n \" \" s}' ;; "
                + "*) echo source ;; esac";

        List<SchedulerProcess> children = new ArrayList<>();
        List<Process> agents = new ArrayList<>();
        try (JournalTail journal = JournalTail.start(bootstrap, topics)) {
            SchedulerProcess a = ChaosRun.child(config, dir, "A", Map.of(), children);
            SchedulerProcess b = ChaosRun.child(config, dir, "B", Map.of(), children);
            a.awaitRunning(PROGRESS);
            b.awaitRunning(PROGRESS);
            await("both instances own pools").atMost(PROGRESS)
                    .until(() -> !a.activeTasks().isEmpty() && !b.activeTasks().isEmpty());
            // The shards' pool and the source's on different instances.
            String shardsPool = pools.stream().filter(p -> a.activeTasks().contains(ChaosRun.taskOf(p, PARTITIONS)))
                    .findFirst().orElseThrow();
            String mainPool = pools.stream().filter(p -> b.activeTasks().contains(ChaosRun.taskOf(p, PARTITIONS)))
                    .findFirst().orElseThrow();
            log.info("Shards in {} (instance A, pid {}), source and reducer in {} (instance B, pid {})", shardsPool,
                    a.pid(), mainPool, b.pid());
            Path logs = ChaosRun.logs();
            agents.add(AgentProcesses.start(bootstrap, run + ".", "main-w", mainPool, Map.of(), 2, script,
                    logs.resolve(run + "-main-w.log")));
            agents.add(AgentProcesses.start(bootstrap, run + ".", "shard-w", shardsPool, Map.of(), 4, script,
                    logs.resolve(run + "-shard-w.log")));

            String wf = "fan";
            List<TaskSubmitted> tasks = new ArrayList<>();
            tasks.add(task(wf + ":source", mainPool, List.of()));
            List<Dependency> shards = new ArrayList<>();
            for (int i = 1; i <= SHARDS; i++) {
                tasks.add(task(wf + ":shard-" + i, shardsPool,
                        List.of(new Dependency(wf + ":source", mainPool, ParentCondition.SUCCEEDED))));
                shards.add(new Dependency(wf + ":shard-" + i, shardsPool, ParentCondition.SUCCEEDED));
            }
            tasks.add(task(wf + ":reduce", mainPool, shards));
            submit(bootstrap, topics, tasks);

            await("a third of the shards succeeded").atMost(PROGRESS).until(() -> journal.all(TaskFinished.class,
                    f -> f.getTaskId().contains(":shard-") && f.getState() == TaskState.SUCCEEDED).size() >= SHARDS / 3);
            log.info("Killing instance A (pid {}), the owner of the shards' pool {}", a.pid(), shardsPool);
            a.kill();

            TaskFinished reduce = await("the reducer succeeded").atMost(Duration.ofMinutes(3)).until(
                    () -> journal.find(TaskFinished.class, f -> f.getTaskId().equals(wf + ":reduce")).orElse(null),
                    f -> f != null);
            assertThat(reduce.getState()).isEqualTo(TaskState.SUCCEEDED);
            AttemptSucceeded result = journal.find(AttemptSucceeded.class, s -> s.getTaskId().equals(wf + ":reduce"))
                    .orElseThrow();
            assertThat(StandardCharsets.UTF_8.decode(result.getResult()).toString().trim())
                    .as("the reducer read every shard's result: how many, and their sum")
                    .isEqualTo(SHARDS + " " + (SHARDS * (SHARDS + 1) / 2));

            Map<String, Long> started = Files.readAllLines(runs).stream()
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
            assertThat(started).as("every task ran").hasSize(SHARDS + 2);
            assertThat(started).as("and ran once").allSatisfy((id, times) -> assertThat(times).as(id).isEqualTo(1L));
            Map<String, Long> assigned = journal.all(AttemptAssigned.class, x -> x.getTaskId().startsWith(wf + ":"))
                    .stream().collect(Collectors.groupingBy(AttemptAssigned::getTaskId, Collectors.counting()));
            assertThat(assigned).as("each assigned once").hasSize(SHARDS + 2)
                    .allSatisfy((id, times) -> assertThat(times).as(id).isEqualTo(1L));
            assertThat(journal.all(ParentEnded.class, e -> e.getPool().equals(mainPool)))
                    .as("each shard's end was told to the reducer's pool once").hasSize(SHARDS);
        } finally {
            agents.forEach(Process::destroyForcibly);
            children.forEach(SchedulerProcess::close);
        }
    }

    private static TaskSubmitted task(String id, String pool, List<Dependency> after) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(pool).setPriority(Priority.NORMAL)
                .setSubmittedAt(Instant.now()).setPayload(ByteBuffer.allocate(0)).setWorkflow("fan")
                .setAfter(new ArrayList<>(after)).build();
    }

    /** Writes the tasks to the submissions topic, parents first, and waits for the broker to take them all. */
    private static void submit(String bootstrap, Topics topics, List<TaskSubmitted> tasks) throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        String topic = topics.submissions().name();
        try (KafkaProducer<String, SubmissionEvent> producer = new KafkaProducer<>(props,
                topics.submissions().keySerde().serializer(), topics.submissions().valueSerde().serializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (TaskSubmitted t : tasks) {
                sent.add(producer.send(new ProducerRecord<>(topic, t.getPool(), new SubmissionEvent(t))));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }
}
