package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TenantQuota;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two tenants sharing real worker agents ({@code cronoq worker} processes, two slots each, each
 * attempt a shell command that sleeps as long as its payload says), on a real broker: the first
 * slots split by the tenants' weights (3:1), a third tenant guaranteed a slot takes one back by
 * preemption after the pool's grace (the agent told, the borrowed attempt revoked and its task
 * waiting again without spending an attempt), and its task then runs to success on an agent.
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TenantWorkersTest {

    private static final Duration PROGRESS = Duration.ofSeconds(90);
    /** Reads the payload (seconds to sleep) and sleeps that long. */
    private static final String SLEEP_PAYLOAD = "read s; sleep \"$s\"";

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    @Test
    void slotsSplitByWeightAndAGuaranteedTenantPreemptsABorrowedAttempt() throws Exception {
        String run = broker.uniqueName("tenants");
        String pool = run + "-pool";
        String bootstrap = broker.bootstrapServers();
        SchedulerConfig config = ChaosRun.workerFaultConfig(bootstrap, run, dir.resolve("state"), 10_000);
        List<Process> agents = new ArrayList<>();
        try (SchedulerApp scheduler = SchedulerApp.start(config)) {
            ChaosRun.awaitRunning(scheduler, PROGRESS);
            Topics topics = scheduler.topics();
            try (JournalTail journal = JournalTail.start(bootstrap, topics);
                 KafkaProducer<String, SubmissionEvent> producer = new KafkaProducer<>(Map.of(
                         ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                         new StringSerializer(), topics.submissions().valueSerde().serializer())) {
                // Given research weighs 3, ci 1, prod is guaranteed one slot, and the grace is 2 s.
                send(producer, topics, pool, policy(pool, "research", 3.0, null, null, null));
                send(producer, topics, pool, policy(pool, "prod", null, List.of(new TenantQuota(Map.of(), 1, null)),
                        null, null));
                send(producer, topics, pool, policy(pool, null, null, null, true, 2_000L));
                // Both submit long tasks before any worker is there.
                for (int i = 1; i <= 6; i++) {
                    send(producer, topics, pool, task(pool, "research-" + i, "research", "60"));
                }
                for (int i = 1; i <= 3; i++) {
                    send(producer, topics, pool, task(pool, "ci-" + i, "ci", "60"));
                }

                // When two agents of two slots each join.
                for (String id : List.of(run + "-a", run + "-b")) {
                    agents.add(AgentProcesses.start(bootstrap, run + ".", id, pool, Map.of(), 2, SLEEP_PAYLOAD,
                            ChaosRun.logs().resolve(id + ".log")));
                }
                await("both agents are accepted").atMost(PROGRESS).until(() -> journal.all(WorkerAccepted.class,
                        w -> w.getWorkerId().startsWith(run)).size() == 2);
                await("every slot is taken").atMost(PROGRESS)
                        .until(() -> journal.all(AttemptAssigned.class, a -> true).size() == 4);

                // Then the four slots split 3:1 by weight.
                Map<String, Integer> byTenant = new HashMap<>();
                for (AttemptAssigned a : journal.all(AttemptAssigned.class, a -> true)) {
                    byTenant.merge(a.getTaskId().substring(0, a.getTaskId().indexOf('-')), 1, Integer::sum);
                }
                assertThat(byTenant).containsEntry("research", 3).containsEntry("ci", 1);

                // When prod, guaranteed a slot, submits a short task while every slot is borrowed.
                send(producer, topics, pool, task(pool, "prod-1", "prod", "0.2"));

                // Then after the grace the newest borrowed attempt is preempted and its agent told.
                AttemptRevoked revoked = await("a borrowed attempt is preempted").atMost(PROGRESS).until(() ->
                        journal.find(AttemptRevoked.class, r -> r.getReason().startsWith("preempted for tenant prod")),
                        java.util.Optional::isPresent).get();
                TaskFinished preempted = journal.find(TaskFinished.class,
                        f -> f.getTaskId().equals(revoked.getTaskId()) && f.getAttempt() == revoked.getAttempt())
                        .orElseThrow();
                assertThat(preempted.getOutcome()).isEqualTo(AttemptOutcome.PREEMPTED);
                assertThat(preempted.getState()).isEqualTo(TaskState.WAITING);
                // And prod's task runs to success on a real agent.
                TaskFinished done = await("prod's task succeeds").atMost(PROGRESS).until(() -> journal.find(
                        TaskFinished.class, f -> f.getTaskId().equals("prod-1") && f.getState() == TaskState.SUCCEEDED),
                        java.util.Optional::isPresent).get();
                assertThat(done.getWorkerId()).isEqualTo(revoked.getWorkerId());
                // The preempted task waits at its place for the next slot; it spent none of its attempts.
                assertThat(journal.find(TaskFinished.class, f -> f.getTaskId().equals(revoked.getTaskId())
                        && f.getState() == TaskState.FAILED)).isEmpty();
            }
        } finally {
            agents.forEach(Process::destroyForcibly);
        }
    }

    private static void send(KafkaProducer<String, SubmissionEvent> producer, Topics topics, String pool,
                             org.apache.avro.specific.SpecificRecord event) throws Exception {
        producer.send(new ProducerRecord<>(topics.submissions().name(), pool, new SubmissionEvent(event))).get();
    }

    private static SharingPolicySet policy(String pool, String tenant, Double weight, List<TenantQuota> quotas,
                                           Boolean preemption, Long graceMs) {
        return SharingPolicySet.newBuilder().setPool(pool).setTenant(tenant).setWeight(weight).setQuotas(quotas)
                .setPreemption(preemption).setPreemptionGraceMs(graceMs).setSetBy("test").setSetAt(Instant.now())
                .build();
    }

    private static TaskSubmitted task(String pool, String id, String tenant, String seconds) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(pool).setLabels(Map.of()).setTenant(tenant)
                .setPayload(ByteBuffer.wrap(seconds.getBytes(StandardCharsets.UTF_8))).setSubmittedAt(Instant.now())
                .build();
    }
}
