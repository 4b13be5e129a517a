package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.has;
import static io.cronoq.scheduler.policy.In.labels;
import static io.cronoq.scheduler.policy.In.needs;
import static io.cronoq.scheduler.policy.In.prefer;
import static io.cronoq.scheduler.policy.In.succeeded;
import static io.cronoq.scheduler.policy.In.task;
import static io.cronoq.scheduler.policy.In.worker;
import static io.cronoq.scheduler.policy.Out.all;
import static io.cronoq.scheduler.policy.Out.assigned;
import static io.cronoq.scheduler.policy.Out.only;
import static io.cronoq.scheduler.policy.Out.workersOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.InputRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Resource requests: each dimension a threshold on what the worker published; soft
 * routing by preferences; the group's usable capacity for a request; and the submission rules.
 */
class ResourcePlacementTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store);

    private String waitingReason(List<Decision> out) {
        return only(out, TaskWaiting.class).getReason();
    }

    @Nested
    class Matching {

        @Test
        void cpuIsAThresholdOnPublishedCores() {
            scheduler.register(worker("small", 4, has().cpu("2").memory("4Gi")));
            scheduler.register(worker("big", 4, has().cpu("4").memory("16Gi")));

            // Exactly 4 cores is enough (>=); only the big worker has them.
            assertThat(workersOf(scheduler.submit(task("t1", needs().cpu("4"))))).containsExactly("big");
            // Half a core fits both: the least loaded gets it.
            assertThat(workersOf(scheduler.submit(task("t2", needs().cpu("500m"))))).containsExactly("small");
            assertThat(waitingReason(scheduler.submit(task("t3", needs().cpu("4.5")))))
                    .isEqualTo("0/2 workers can run it: 2 have too little cpu (needs 4500m, largest 4)");
        }

        @Test
        void memoryIsAThresholdInBytesWhateverTheUnit() {
            scheduler.register(worker("m4", 2, has().cpu("8").memory("4Gi")));
            scheduler.register(worker("m8", 2, has().cpu("8").memory("8Gi")));

            assertThat(workersOf(scheduler.submit(task("t1", needs().memory("8Gi"))))).containsExactly("m8");
            // 6G (decimal) is more than 4Gi: again only m8.
            assertThat(workersOf(scheduler.submit(task("t2", needs().memory("6G"))))).containsExactly("m8");
            assertThat(waitingReason(scheduler.submit(task("t3", needs().memory("8Gi")))))
                    .isEqualTo("1 worker matches; all 2 slots busy; 1st in line");
            assertThat(waitingReason(scheduler.submit(task("t4", needs().memory("9Gi")))))
                    .isEqualTo("0/2 workers can run it: 2 have too little memory (needs 9Gi, largest 8Gi)");
        }

        @Test
        void diskIsAThresholdInBytesWhateverTheUnit() {
            scheduler.register(worker("d100G", 2, has().disk("100G")));
            scheduler.register(worker("d100Gi", 2, has().disk("100Gi")));

            // 100Gi is 107.4 GB: only the binary-sized disk has it.
            assertThat(workersOf(scheduler.submit(task("t1", needs().disk("100Gi"))))).containsExactly("d100Gi");
            assertThat(workersOf(scheduler.submit(task("t2", needs().disk("100G"))))).containsExactly("d100G");
            assertThat(waitingReason(scheduler.submit(task("t3", needs().disk("1T")))))
                    .isEqualTo("0/2 workers can run it: 2 have too little disk (needs 1T, largest 100Gi)");
        }

        @Test
        void gpuCountsOnlyGpusWithFreeMemory() {
            // Two GPUs, one of them full: it offers one.
            scheduler.register(worker("gpu-2", 2, has().cpu("8").gpu("a100", "40Gi").gpu("a100", "0")));
            scheduler.register(worker("cpu-only", 2, has().cpu("8")));

            assertThat(workersOf(scheduler.submit(task("t1", needs().gpu(1))))).containsExactly("gpu-2");
            assertThat(waitingReason(scheduler.submit(task("t2", needs().gpu(2)))))
                    .isEqualTo("0/2 workers can run it: 2 have too few free GPUs (needs 2, most 1)");
        }

        @Test
        void taskWithoutGpuNeedKeepsGpuWorkersFree() {
            scheduler.register(worker("gpu-1", 4, has().cpu("8").gpu("a100", "40Gi")));
            scheduler.register(worker("cpu-1", 1, has().cpu("8")));

            // Same labels, so the same group: inside it, fewest GPUs first, though gpu-1 has more free slots.
            assertThat(workersOf(scheduler.submit(task("t1", needs().cpu("1"))))).containsExactly("cpu-1");
            assertThat(workersOf(scheduler.submit(task("t2", needs().cpu("1"))))).containsExactly("gpu-1");
        }

        @Test
        void packagesMatchVersionRangesCompatibleReleasesAndNormalizedNames() {
            scheduler.register(worker("torch2", 4, has().pkg("torch", "2.1.0").pkg("Scikit-Learn", "1.4.2")));
            scheduler.register(worker("torch1", 4, has().pkg("torch", "1.13.1")));
            scheduler.register(worker("torch3rc", 4, has().pkg("torch", "3.0rc1")));

            // <3 excludes 3.0rc1 (a pre-release of 3); >=2.0 excludes 1.13.1.
            assertThat(workersOf(scheduler.submit(task("range", needs().packages("torch>=2.0,<3")))))
                    .containsExactly("torch2");
            // ~=2.1.0 means >=2.1.0 and ==2.1.*.
            assertThat(workersOf(scheduler.submit(task("compatible", needs().packages("torch~=2.1.0")))))
                    .containsExactly("torch2");
            // Names compare case-insensitively with - _ . alike.
            assertThat(workersOf(scheduler.submit(task("names", needs().packages("scikit_learn>=1.4")))))
                    .containsExactly("torch2");
            // A bare name takes any version: the least loaded worker.
            assertThat(workersOf(scheduler.submit(task("bare", needs().packages("TORCH"))))).containsExactly("torch1");
            // A pre-release comes before its release: 3.0rc1 is not >=3.0.
            assertThat(waitingReason(scheduler.submit(task("pre", needs().packages("torch>=3.0")))))
                    .isEqualTo("0/3 workers can run it: 3 lack torch>=3.0 (installed 1.13.1, 2.1.0, 3.0rc1)");
            assertThat(waitingReason(scheduler.submit(task("none", needs().packages("jax")))))
                    .isEqualTo("0/3 workers can run it: 3 lack jax");
        }

        @Test
        void workerThatPublishedNoResourcesSatisfiesNoRequest() {
            scheduler.register(worker("silent", 2));

            assertThat(workersOf(scheduler.submit(task("plain")))).containsExactly("silent");
            assertThat(waitingReason(scheduler.submit(task("t1", needs().cpu("100m")))))
                    .isEqualTo("0/1 workers can run it: 1 published no resources");
        }

        @Test
        void labelsComeFirstThenResources() {
            scheduler.register(worker("a100-small", 2, has().memory("4Gi").gpu("a100", "40Gi"), "gpu=a100"));
            scheduler.register(worker("h100-big", 2, has().memory("64Gi").gpu("h100", "80Gi"), "gpu=h100"));

            // The h100 worker has the memory but not the label: it is counted as lacking the label.
            assertThat(waitingReason(scheduler.submit(task("t1", needs().memory("8Gi").gpu(1), "gpu=a100"))))
                    .isEqualTo("0/2 workers can run it: 1 lacks gpu=a100, 1 has too little memory (needs 8Gi, "
                            + "largest 4Gi)");
        }

        @Test
        void groupCapacityForRequestCountsOnlyWorkersThatSatisfyIt() {
            scheduler.register(worker("big", 2, has().cpu("16").memory("64Gi"), "rack=r1"));
            scheduler.register(worker("small-1", 4, has().cpu("2").memory("4Gi"), "rack=r1"));
            scheduler.register(worker("small-2", 4, has().cpu("2").memory("4Gi"), "rack=r1"));

            AttemptAssigned heavy1 = assigned(scheduler.submit(task("heavy-1", needs().memory("32Gi"))));
            assertThat(heavy1.getWorkerId()).isEqualTo("big");
            assertThat(workersOf(scheduler.submit(task("heavy-2", needs().memory("32Gi"))))).containsExactly("big");
            // The group has 8 free slots, none on a worker with 32Gi: it waits.
            assertThat(waitingReason(scheduler.submit(task("heavy-3", needs().memory("32Gi")))))
                    .isEqualTo("1 worker matches; all 2 slots busy; 1st in line");
            AttemptAssigned light = assigned(scheduler.submit(task("light", needs().memory("1Gi"))));
            assertThat(light.getWorkerId()).isEqualTo("small-1");
            assertThat(light.getGroup()).isEqualTo(labels("rack=r1"));

            PoolSnapshot s = scheduler.snapshot();
            assertThat(s.groups()).containsExactly(new GroupSnapshot(labels("rack=r1"), 10, 3, 3, 1, 0));

            // A slot freed on a small worker does not take the heavy task; one freed on the big worker does.
            assertThat(all(scheduler.succeeded(succeeded(light)), AttemptAssigned.class)).isEmpty();
            assertThat(assigned(scheduler.succeeded(succeeded(heavy1))).getTaskId()).isEqualTo("heavy-3");
        }

        @Test
        void freedSlotGoesToOldestTaskItCanServePastOnesItCannot() {
            scheduler.register(worker("big", 1, has().cpu("16")));
            scheduler.register(worker("small", 1, has().cpu("1")));
            scheduler.submit(task("run-big", needs().cpu("8")));
            AttemptAssigned onSmall = assigned(scheduler.submit(task("run-small", needs().cpu("1"))));
            assertThat(onSmall.getWorkerId()).isEqualTo("small");
            scheduler.submit(task("heavy-a", needs().cpu("8")));
            scheduler.submit(task("heavy-b", needs().cpu("8")));
            scheduler.submit(task("light", needs().cpu("500m")));

            AttemptAssigned next = assigned(scheduler.succeeded(succeeded(onSmall)));

            assertThat(next.getTaskId()).isEqualTo("light");
            assertThat(next.getWorkerId()).isEqualTo("small");
            assertThat(store.task("heavy-a").getState()).isEqualTo(TaskState.WAITING);
        }

        @Test
        void waitingLineIsKeyedByTheCanonicalRequirement() {
            scheduler.submit(task("t1", needs().memory("8Gi").cpu("4").packages("Torch<3,>=2.0"), "gpu=a100"));
            scheduler.submit(task("t2", needs().cpu("4000m").memory("8192Mi").packages("torch>=2.0, <3"), "gpu=a100"));

            assertThat(store.waiting().entries()).extracting(WaitingQueue.Entry::classKey)
                    .containsExactly("gpu=a100|cpu=4000;mem=8589934592;pkg=torch>=2.0,<3",
                            "gpu=a100|cpu=4000;mem=8589934592;pkg=torch>=2.0,<3");
            // A new scheduler over the same store reads the class back and serves it.
            PoolScheduler restarted = new PoolScheduler(POOL, store);
            List<Decision> joined = restarted.register(worker("a100", 2,
                    has().cpu("8").memory("16Gi").pkg("torch", "2.2.1"), "gpu=a100"));
            assertThat(all(joined, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId)
                    .containsExactly("t1", "t2");
        }
    }

    @Nested
    class SoftRouting {

        @Test
        void preferencesRankEligibleWorkersBeforeTheGroupOrder() {
            scheduler.register(worker("plain", 4, has().cpu("8")));
            scheduler.register(worker("eu", 4, has().cpu("2"), "zone=eu"));
            scheduler.register(worker("us", 4, has().cpu("8"), "zone=us"));
            scheduler.register(worker("eu-ssd", 4, has().cpu("8"), "zone=eu", "disk=ssd"));

            // No preference: the least specialized group.
            assertThat(workersOf(scheduler.submit(task("t1")))).containsExactly("plain");
            // zone=eu scores 10 on eu and eu-ssd: then the group order (fewest labels).
            assertThat(workersOf(scheduler.submit(prefer(task("t2"), 10, "zone=eu")))).containsExactly("eu");
            // A preference counts only when the worker carries all its labels: eu-ssd scores 10 + 5.
            assertThat(workersOf(scheduler.submit(prefer(prefer(task("t3"), 10, "zone=eu"), 5, "zone=eu",
                    "disk=ssd")))).containsExactly("eu-ssd");
            // The heavier preference wins.
            assertThat(workersOf(scheduler.submit(prefer(prefer(task("t4"), 10, "zone=eu"), 20, "zone=us"))))
                    .containsExactly("us");
            // A preferred worker that fails a hard constraint is not eligible: eu has 2 cores.
            assertThat(workersOf(scheduler.submit(prefer(task("t5", needs().cpu("4")), 10, "zone=eu"))))
                    .containsExactly("eu-ssd");
            // A preference nobody carries changes nothing.
            assertThat(workersOf(scheduler.submit(prefer(task("t6"), 50, "gpu=h100")))).containsExactly("plain");
            // Equal scores: group order, then the least loaded worker.
            assertThat(workersOf(scheduler.submit(prefer(prefer(task("t7"), 5, "zone=eu"), 5, "zone=us"))))
                    .as("eu, us and eu-ssd score 5; eu and us have fewer labels and 3 free slots each: the key decides")
                    .containsExactly("eu");
        }

        @Test
        void preferenceNeverOverridesHardConstraints() {
            scheduler.register(worker("eu", 4, has().cpu("2"), "zone=eu"));
            scheduler.register(worker("us", 1, has().cpu("8"), "zone=us"));

            assertThat(workersOf(scheduler.submit(prefer(task("t1", needs().cpu("4")), 100, "zone=eu"))))
                    .containsExactly("us");
            // us is full; eu has 4 free slots but 2 cores: the task waits.
            List<Decision> second = scheduler.submit(prefer(task("t2", needs().cpu("4")), 100, "zone=eu"));
            assertThat(all(second, AttemptAssigned.class)).isEmpty();
            assertThat(waitingReason(second)).isEqualTo("1 worker matches; its only slot is busy; 1st in line");
        }

        @Test
        void requeuedTaskKeepsItsPreferences() {
            scheduler.register(worker("w1", 1));
            assertThat(workersOf(scheduler.submit(prefer(task("t1"), 10, "zone=us")))).containsExactly("w1");
            scheduler.register(worker("eu", 1, "zone=eu"));
            scheduler.register(worker("us", 1, "zone=us"));

            // w1 leaves and its grace ends with t1 unreported: t1 runs again, on the worker it prefers
            // (eu would come first by label key).
            scheduler.leave(In.left("w1", "scale-in"));
            AttemptAssigned again = assigned(scheduler.tick(In.T0.plusMillis(TimeRules.DEFAULT.leaveGraceMs())));
            assertThat(again.getTaskId()).isEqualTo("t1");
            assertThat(again.getWorkerId()).isEqualTo("us");
            assertThat(workersOf(scheduler.submit(task("t2")))).containsExactly("eu");
        }
    }

    @Nested
    class SubmissionRules {

        @Test
        void unreadablePackageRequirementIsRejectedWithTheField() {
            InputRejected r = only(scheduler.submit(task("t1", needs().packages("numpy", "torch>>2"))),
                    InputRejected.class);

            assertThat(r.getCode()).isEqualTo(RejectionCode.INVALID_ARGUMENT);
            assertThat(r.getField()).isEqualTo("resources.packages[1]");
            assertThat(r.getReason()).contains("'torch>>2'");
            assertThat(store.taskIds()).isEmpty();
        }

        @Test
        void negativeQuantityAndOutOfRangeWeightAreRejected() {
            var negative = task("t1");
            negative.setResources(needs().build());
            negative.getResources().setMemoryBytes(-1L);
            assertThat(only(scheduler.submit(negative), InputRejected.class).getField())
                    .isEqualTo("resources.memoryBytes");

            assertThat(only(scheduler.submit(prefer(task("t2"), 0, "zone=eu")), InputRejected.class).getField())
                    .isEqualTo("preferences[0].weight");
            assertThat(store.taskIds()).isEmpty();
        }

        @Test
        void zeroRequestIsNoRequest() {
            scheduler.register(worker("silent", 1));
            var zero = task("t1", needs().cpu("0").gpu(0));

            assertThat(workersOf(scheduler.submit(zero))).containsExactly("silent");
            assertThat(Requirement.of(zero).key()).isEmpty();
            assertThat(Requirement.of(zero).labels()).isEmpty();
        }
    }
}
