package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.Gpu;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import io.cronoq.scheduler.policy.match.Requirement;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Resource requests through the whole topology: the class key in RocksDB, the reason in the journal and the task record. */
class ResourcePlacementTopologyTest {

    private static final String POOL = "training";
    private static final Map<String, String> A100 = Map.of("gpu", "a100");
    private static final long GI = 1L << 30;

    private final SchedulerDriver scheduler = new SchedulerDriver();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void resourceRequestWaitsWithReasonUntilASatisfyingWorkerRegisters() {
        scheduler.send(worker("small-a100", 4 * GI, 1));
        scheduler.send(task("train", 8 * GI, 1));

        // Waiting, with why: the line is keyed by labels and the canonical request.
        assertThat(scheduler.task("train").getState()).isEqualTo(TaskState.WAITING);
        String reason = "0/1 workers can run it: 1 has too little memory (needs 8Gi, largest 4Gi)";
        assertThat(journalOf(TaskWaiting.class)).extracting(TaskWaiting::getReason).containsExactly(reason);
        assertThat(scheduler.task("train").getWaitingReason()).isEqualTo(reason);
        assertThat(scheduler.index(POOL).lines().keySet()).singleElement().satisfies(classKey -> {
            assertThat(classKey).isEqualTo("gpu=a100|mem=8589934592;gpu=1");
            assertThat(Requirement.parse(classKey).resources().memoryBytes()).isEqualTo(8 * GI);
        });

        // A worker with a full GPU does not take it; one with a free GPU and the memory does.
        scheduler.send(worker("busy-a100", 80 * GI, 0));
        assertThat(assigned()).isEmpty();
        scheduler.send(worker("big-a100", 80 * GI, 1));

        List<AttemptAssigned> out = assigned();
        assertThat(out).extracting(AttemptAssigned::getTaskId, AttemptAssigned::getWorkerId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("train", "big-a100"));
        assertThat(scheduler.index(POOL).lines()).isEmpty();
    }

    @Test
    void unreadablePackageRequirementIsRejectedAtTheScheduler() {
        TaskSubmitted t = submit("t1", POOL, A100);
        t.setResources(new ResourceRequest(null, null, null, null, List.of("torch=>2")));
        scheduler.send(t);

        assertThat(journalOf(InputRejected.class)).singleElement()
                .satisfies(r -> assertThat(r.getField()).isEqualTo("resources.packages[0]"));
        assertThat(scheduler.task("t1")).isNull();
    }

    private static WorkerRegistered worker(String id, long memory, long gpuFree) {
        WorkerRegistered w = register(id, POOL, A100, 2);
        w.setResources(new WorkerResources(8_000L, memory, 100 * GI,
                List.of(new Gpu(0, "a100", 80 * GI, gpuFree * 40 * GI)), Map.of()));
        return w;
    }

    private static TaskSubmitted task(String id, long memory, int gpus) {
        TaskSubmitted t = submit(id, POOL, A100);
        t.setResources(new ResourceRequest(null, memory, null, gpus, List.of()));
        return t;
    }

    private List<AttemptAssigned> assigned() {
        return scheduler.assignments().stream()
                .filter(kv -> kv.value instanceof AttemptAssigned)
                .map(kv -> (AttemptAssigned) kv.value)
                .toList();
    }

    private <T> List<T> journalOf(Class<T> type) {
        return scheduler.journal().stream()
                .map(JournalEntry::getEvent)
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
    }
}
