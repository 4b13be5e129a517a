package io.cronoq.bench.chaos;

import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker;
import io.cronoq.agent.process.AgentMain;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.schemas.Topics;
import java.io.IOException;
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
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real worker agents for the fault tests: {@code cronoq worker} in a child JVM on this JVM's class
 * path, one slot, heartbeating every 500 ms, whose command reads the payload and then runs until the
 * agent is gone (at most two minutes); the long task such an agent holds while a fault strikes; and the
 * in-process worker of the same group that takes the task over.
 */
final class AgentProcesses {

    private static final Logger log = LoggerFactory.getLogger(AgentProcesses.class);

    private AgentProcesses() {}

    /** Starts an agent {@code id} in {@code pool} with {@code labels}; its output is appended to {@code logFile}. */
    static Process start(String bootstrap, String prefix, String id, String pool, Map<String, String> labels,
                         Path logFile) throws IOException {
        return start(bootstrap, prefix, id, pool, labels, 1,
                "cat >/dev/null; i=0; while [ $i -lt 600 ] && kill -0 $PPID 2>/dev/null; do sleep 0.2; i=$((i+1)); done",
                logFile);
    }

    /** Starts an agent {@code id} with {@code slots} slots that runs each attempt as {@code sh -c script} (payload on stdin). */
    static Process start(String bootstrap, String prefix, String id, String pool, Map<String, String> labels,
                         int slots, String script, Path logFile) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), AgentMain.class.getName(),
                "--bootstrap", bootstrap, "--topic-prefix", prefix, "--id", id, "--pool", pool,
                "--slots", String.valueOf(slots), "--heartbeat-interval", "500ms"));
        labels.forEach((k, v) -> command.addAll(List.of("--label", k + "=" + v)));
        command.addAll(List.of("--", "sh", "-c", script));
        Files.createDirectories(logFile.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
        log.info("Started worker {} in child JVM {} (log: {})", id, process.pid(), logFile);
        return process;
    }

    /** Submits task {@code taskId} with {@code labels} to {@code pool} on the submissions topic, acknowledged. */
    static void submitLongTask(String bootstrap, Topics topics, String pool, String taskId, Map<String, String> labels)
            throws Exception {
        TaskSubmitted task = TaskSubmitted.newBuilder().setTaskId(taskId).setPool(pool).setLabels(new HashMap<>(labels))
                .setPayload(ByteBuffer.wrap("a long task".getBytes(StandardCharsets.UTF_8)))
                .setSubmittedAt(Instant.now()).build();
        try (KafkaProducer<String, SubmissionEvent> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), topics.submissions().valueSerde().serializer())) {
            producer.send(new ProducerRecord<>(topics.submissions().name(), pool, new SubmissionEvent(task))).get();
        }
    }

    /**
     * Waits until agent {@code workerId} is accepted, submits long task {@code taskId} to {@code pool} and waits
     * for its first assignment, which it returns.
     */
    static AttemptAssigned submitLongTaskTo(String workerId, JournalTail journal, String bootstrap, Topics topics,
                                            String pool, String taskId, Map<String, String> labels, Duration timeout)
            throws Exception {
        await("worker A is accepted").atMost(timeout)
                .until(() -> journal.find(WorkerAccepted.class, w -> w.getWorkerId().equals(workerId)).isPresent());
        submitLongTask(bootstrap, topics, pool, taskId, labels);
        return await("attempt 1 is assigned to A").atMost(timeout).until(() -> journal.find(
                AttemptAssigned.class, a -> a.getTaskId().equals(taskId)), Optional::isPresent).get();
    }

    /** Waits until {@code workerId} started its attempt of {@code taskId}. */
    static void awaitStarted(JournalTail journal, String taskId, String workerId, Duration timeout) {
        await("A started attempt 1").atMost(timeout).until(() -> journal.find(AttemptStarted.class,
                s -> s.getTaskId().equals(taskId) && s.getWorkerId().equals(workerId)).isPresent());
    }

    /** An in-process worker {@code id} in {@code pool}, one slot, whose tasks succeed at once; started. */
    static CronoqWorker inProcessWorker(String bootstrap, String prefix, String id, String pool,
                                        Map<String, String> labels) {
        return CronoqWorker.builder().bootstrap(bootstrap).topicPrefix(prefix).id(id).pool(pool)
                .labels(labels).slots(1).heartbeatInterval(Duration.ofMillis(500))
                .handler(ctx -> ("done by " + ctx.workerId()).getBytes(StandardCharsets.UTF_8)).build().start();
    }
}
