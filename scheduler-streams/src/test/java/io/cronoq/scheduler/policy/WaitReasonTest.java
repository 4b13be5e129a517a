package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.Units;
import io.cronoq.scheduler.policy.match.ResourceNeed;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.scheduler.policy.store.PoolStore;
import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.drain;
import static io.cronoq.scheduler.policy.In.has;
import static io.cronoq.scheduler.policy.In.heartbeat;
import static io.cronoq.scheduler.policy.In.needs;
import static io.cronoq.scheduler.policy.In.task;
import static io.cronoq.scheduler.policy.In.worker;
import static io.cronoq.scheduler.policy.Out.all;
import static io.cronoq.scheduler.policy.Out.assigned;
import static io.cronoq.scheduler.policy.Out.only;
import static io.cronoq.scheduler.policy.Out.types;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerLeft;
import io.cronoq.schemas.rules.Rules;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * "Why is it waiting?": the reason a task gets when it starts waiting, the reason journaled when
 * its class's chance changes (once per class, for the task first in line), and the per-class view
 * the starvation signal reads.
 */
class WaitReasonTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store);

    private String reasonOf(TaskSubmitted task) {
        return only(scheduler.submit(task), TaskWaiting.class).getReason();
    }

    @Test
    void missingLabelCountsWorkersByWhatTheyLack() {
        scheduler.register(worker("eu", 2, "zone=eu"));
        scheduler.register(worker("plain", 2));

        assertThat(reasonOf(task("t1", "gpu=a100", "zone=eu")))
                .isEqualTo("0/2 workers can run it: 1 lacks gpu=a100, 1 lacks gpu=a100,zone=eu");
    }

    @Test
    void aReasonNamesSomeMissingLabelsAndCountsTheRest() {
        String[] required = new String[Rules.MAX_LABELS];
        for (int i = 0; i < required.length; i++) {
            required[i] = "label-name-" + (100 + i) + "=label-value-" + i;
        }
        scheduler.register(worker("plain", 2));

        String reason = reasonOf(task("t1", required));

        assertThat(reason).startsWith("0/1 workers can run it: 1 lacks label-name-100=label-value-0,");
        assertThat(reason.length()).isLessThanOrEqualTo(WaitReason.MAX_LIST_CHARS + 100);
        assertThat(reason).matches(".* … and \\d+ more");
        int shown = reason.split("=label-value-").length - 1;
        assertThat(reason).endsWith(" … and " + (Rules.MAX_LABELS - shown) + " more");
    }

    @Test
    void aReasonOfAPoolWithNoWorkerNamesSomeOfTheNeedAndCountsTheRest() {
        String[] required = new String[Rules.MAX_LABELS];
        for (int i = 0; i < required.length; i++) {
            required[i] = "label-name-" + (100 + i) + "=label-value-" + i;
        }

        String reason = reasonOf(task("t1", required));

        assertThat(reason).startsWith("0/0 workers can run it: pool " + POOL + " has no live worker; it needs ");
        assertThat(reason.length()).isLessThanOrEqualTo(WaitReason.MAX_LIST_CHARS + 100);
        assertThat(reason).matches(".* … and \\d+ more");
    }

    @Test
    void aReasonWithManyDifferentShortfallsNamesSomeAndCountsTheRest() {
        // 40 workers, each lacking a different one of the 40 labels the task requires: 40 shortfalls.
        String[] required = new String[40];
        for (int i = 0; i < required.length; i++) {
            required[i] = "required-label-" + (10 + i) + "=v";
        }
        for (int i = 0; i < required.length; i++) {
            List<String> carried = new ArrayList<>(List.of(required));
            carried.remove(i);
            scheduler.register(worker("w" + i, 1, carried.toArray(String[]::new)));
        }

        String reason = reasonOf(task("t1", required));

        assertThat(reason.length()).isLessThanOrEqualTo(WaitReason.MAX_LIST_CHARS + 100);
        assertThat(reason).matches("0/40 workers can run it: .* … and \\d+ more");
    }

    @Test
    void tooLittleMemoryShowsTheNeedAndTheLargestInHumanUnits() {
        scheduler.register(worker("m4", 2, has().memory("4Gi")));
        scheduler.register(worker("m1500", 2, has().memory("1500M")));

        assertThat(reasonOf(task("t1", needs().memory("8Gi"))))
                .isEqualTo("0/2 workers can run it: 2 have too little memory (needs 8Gi, largest 4Gi)");
        assertThat(reasonOf(task("t2", needs().memory("4100Mi"))))
                .isEqualTo("0/2 workers can run it: 2 have too little memory (needs 4100Mi, largest 4Gi)");
    }

    @Test
    void aNeedJustAboveTheLargestNeverReadsTheSameAsIt() {
        scheduler.register(worker("m", 2, has().memory("102436").disk("16106127360").cpu("1999m")));

        assertThat(reasonOf(task("t1", needs().memory("102437"))))
                .isEqualTo("0/1 workers can run it: 1 has too little memory (needs 100.036Ki, largest 100.035Ki)");
        assertThat(reasonOf(task("t2", needs().disk("16160000001"))))
                .isEqualTo("0/1 workers can run it: 1 has too little disk (needs 15.05Gi, largest 15.00Gi)");
        assertThat(reasonOf(task("t3", needs().cpu("2"))))
                .isEqualTo("0/1 workers can run it: 1 has too little cpu (needs 2, largest 1999m)");
    }

    @Test
    void bytesSideBySideAreWrittenApartWithAsFewDigitsAsTellThem() {
        assertThat(Units.bytesApart(102_437, 102_436)).containsExactly("100.036Ki", "100.035Ki");
        // One byte over a gibibyte needs every digit.
        assertThat(Units.bytesApart((1L << 30) + 1, 1L << 30)).containsExactly("1073741825 bytes", "1073741824 bytes");
        assertThat(Units.bytesApart(8L << 30, 4L << 30)).containsExactly("8Gi", "4Gi");
        // 15.36Gi and 15.33Gi both read 15.3Gi with one decimal: two tell them apart.
        long a = 1536L * (1L << 30) / 100 + 1;
        long b = 1533L * (1L << 30) / 100 + 1;
        assertThat(Units.bytes(a)).isEqualTo(Units.bytes(b));
        assertThat(Units.bytesApart(a, b)).containsExactly("15.36Gi", "15.33Gi");
        assertThat(Units.bytesApart(5000, 5000)).containsExactly("5k", "5k");
    }

    @Test
    void noGpu() {
        scheduler.register(worker("cpu-1", 2, has().cpu("8")));
        scheduler.register(worker("full-gpu", 2, has().cpu("8").gpu("a100", "0")));

        assertThat(reasonOf(task("t1", needs().gpu(1)))).isEqualTo("0/2 workers can run it: 2 have no free GPU");
        assertThat(reasonOf(task("t2", needs().gpu(2))))
                .isEqualTo("0/2 workers can run it: 2 have no free GPU (needs 2)");
    }

    @Test
    void missingPackageShowsTheVersionsInstalled() {
        scheduler.register(worker("old-torch", 2, has().pkg("torch", "1.13.1")));
        scheduler.register(worker("no-torch", 2, has().pkg("numpy", "1.26.4")));

        assertThat(reasonOf(task("t1", needs().packages("torch>=2.0"))))
                .isEqualTo("0/2 workers can run it: 2 lack torch>=2.0 (installed 1.13.1)");
    }

    @Test
    void everyWorkerIsCountedOnceUnderTheFirstCheckItFails() {
        scheduler.register(worker("cpu-1", 4, has().cpu("8").memory("32Gi")));
        scheduler.register(worker("cpu-2", 4, has().cpu("8").memory("32Gi")));
        scheduler.register(worker("small-a100", 2, has().cpu("8").memory("4Gi").gpu("a100", "40Gi"), "gpu=a100"));
        scheduler.register(worker("drained-a100", 2, has().cpu("8").memory("64Gi").gpu("a100", "40Gi"), "gpu=a100"));
        scheduler.drain(drain("drained-a100"));
        scheduler.register(worker("silent-a100", 1, "gpu=a100"));

        assertThat(reasonOf(task("train", needs().memory("8Gi").gpu(1), "gpu=a100")))
                .isEqualTo("0/5 workers can run it: 2 lack gpu=a100, 1 published no resources, "
                        + "1 has too little memory (needs 8Gi, largest 4Gi), 1 is draining");
    }

    @Test
    void emptyPoolSaysWhatTheTaskNeeds() {
        assertThat(reasonOf(task("t1", needs().memory("8Gi").gpu(1), "gpu=a100")))
                .isEqualTo("0/0 workers can run it: pool p has no live worker; it needs gpu=a100, memory 8Gi, 1 GPU");
        assertThat(reasonOf(task("t2"))).isEqualTo("0/0 workers can run it: pool p has no live worker");
    }

    @Test
    void allMatchingSlotsBusyGivesThePlaceInLine() {
        for (String id : List.of("w1", "w2", "w3")) {
            scheduler.register(worker(id, 4, has().memory("16Gi")));
        }
        for (int i = 0; i < 12; i++) {
            assigned(scheduler.submit(task("run-" + i, needs().memory("8Gi"))));
        }

        List<String> reasons = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            reasons.add(reasonOf(task("wait-" + i, needs().memory("8Gi"))));
        }

        assertThat(reasons.get(0)).isEqualTo("3 workers match; all 12 slots busy; 1st in line");
        assertThat(reasons.get(4)).isEqualTo("3 workers match; all 12 slots busy; 5th in line");
        assertThat(store.task("wait-5").getWaitingReason()).isEqualTo(reasons.get(4));
    }

    @Test
    void reasonChangeIsJournaledOncePerClassForItsHead() {
        scheduler.register(worker("cpu-1", 2));
        for (String id : List.of("g1", "g2", "g3")) {
            assertThat(reasonOf(task(id, "gpu=a100"))).isEqualTo("0/1 workers can run it: 1 lacks gpu=a100");
        }

        // Another worker: the class's reason changed; one TaskWaiting, for the task first in line.
        List<Decision> out = scheduler.register(worker("cpu-2", 2));
        assertThat(types(out)).containsExactly("WorkerRegistered", "WorkerAccepted", "RegistrationAccepted",
                "TaskWaiting");
        TaskWaiting told = only(out, TaskWaiting.class);
        assertThat(told.getTaskId()).isEqualTo("g1");
        assertThat(told.getReason()).isEqualTo("0/2 workers can run it: 2 lack gpu=a100");
        assertThat(store.task("g1").getWaitingReason()).isEqualTo(told.getReason());
        // The others keep what they were told when they started waiting; the class says what holds now.
        assertThat(store.task("g2").getWaitingReason()).isEqualTo("0/1 workers can run it: 1 lacks gpu=a100");
        assertThat(scheduler.classes()).singleElement().satisfies(c -> {
            assertThat(c.classKey()).isEqualTo("gpu=a100");
            assertThat(c.waiting()).isEqualTo(3);
            assertThat(c.headTaskId()).isEqualTo("g1");
            assertThat(c.reason()).isEqualTo("0/2 workers can run it: 2 lack gpu=a100");
        });

        // Inputs that change no worker tell nothing.
        assertThat(scheduler.heartbeat(heartbeat("cpu-1", 1, T0))).isEmpty();
        assertThat(all(scheduler.submit(task("plain")), TaskWaiting.class)).isEmpty();

        // A restarted scheduler knows what was said: only the real change is told.
        PoolScheduler restarted = new PoolScheduler(POOL, store);
        assertThat(all(restarted.register(worker("cpu-3", 2)), TaskWaiting.class))
                .extracting(TaskWaiting::getTaskId, TaskWaiting::getReason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("g1", "0/3 workers can run it: 3 lack gpu=a100"));

        // A matching worker joins: the head runs, and the new head's chance changed.
        out = restarted.register(worker("a100-1", 1, "gpu=a100"));
        assertThat(assigned(out).getTaskId()).isEqualTo("g1");
        told = only(out, TaskWaiting.class);
        assertThat(told.getTaskId()).isEqualTo("g2");
        assertThat(told.getReason()).isEqualTo("1 worker matches; its only slot is busy; 1st in line");

        // A worker the class cannot use does not change its chance.
        assertThat(all(restarted.register(worker("cpu-4", 2)), TaskWaiting.class)).isEmpty();

        // The only matching worker drains.
        out = restarted.drain(drain("a100-1"));
        assertThat(types(out)).containsExactly("WorkerDraining", "TaskWaiting");
        assertThat(only(out, TaskWaiting.class).getReason())
                .isEqualTo("0/5 workers can run it: 4 lack gpu=a100, 1 is draining");
    }

    @Test
    void classesReportWaitingCountHeadAgeAndReason() {
        scheduler.register(worker("cpu-1", 1, has().cpu("2")));
        scheduler.submit(task("t1", needs().cpu("1")));
        scheduler.submit(at(task("t2", needs().cpu("1")), 10));
        scheduler.submit(at(task("t3", needs().cpu("1")), 20));
        scheduler.submit(at(task("g1", needs().gpu(1)), 30));

        assertThat(scheduler.classes()).containsExactly(
                new ClassSnapshot("|cpu=1000", "default", Requirement.parse("").labels(), ResourceNeed.parse("cpu=1000"), 2, 1, 1,
                        "t2", T0.plusSeconds(10), T0.plusSeconds(10), "1 worker matches; its only slot is busy", null, false),
                new ClassSnapshot("|gpu=1", "default", Requirement.parse("").labels(), ResourceNeed.parse("gpu=1"), 1, 0, 0,
                        "g1", T0.plusSeconds(30), T0.plusSeconds(30), "0/1 workers can run it: 1 has no free GPU", null, false));

        // The worker leaves, and its grace ends with t1 unreported: t1 goes back to the head of its line,
        // waiting since then.
        scheduler.leave(new WorkerLeft("cpu-1", POOL, null, "scale-in", T0.plusSeconds(40)));
        List<Decision> out = scheduler.tick(T0.plusSeconds(45));

        assertThat(all(out, TaskWaiting.class)).extracting(TaskWaiting::getTaskId, TaskWaiting::getReason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("t1",
                                "0/0 workers can run it: pool p has no live worker; it needs cpu 1"),
                        org.assertj.core.groups.Tuple.tuple("g1",
                                "0/0 workers can run it: pool p has no live worker; it needs 1 GPU"));
        ClassSnapshot cpu = scheduler.classes().get(0);
        assertThat(cpu.waiting()).isEqualTo(3);
        assertThat(cpu.headTaskId()).isEqualTo("t1");
        assertThat(cpu.headSubmittedAt()).isEqualTo(T0);
        assertThat(cpu.headWaitingSince()).isEqualTo(T0.plusSeconds(45));
    }

    @Test
    void classesAreReadableOverAStoreThatRefusesWrites() {
        scheduler.register(worker("cpu-1", 1));
        scheduler.submit(task("t1"));
        scheduler.submit(task("t2"));
        scheduler.submit(task("g1", "gpu=a100"));

        PoolScheduler reader = new PoolScheduler(POOL, new ReadOnly(store));

        assertThat(reader.classes()).extracting(ClassSnapshot::classKey, ClassSnapshot::waiting, ClassSnapshot::reason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("", 1L, "1 worker matches; its only slot is busy"),
                        org.assertj.core.groups.Tuple.tuple("gpu=a100", 1L, "0/1 workers can run it: 1 lacks gpu=a100"));
        assertThat(reader.snapshot()).isEqualTo(scheduler.snapshot());
    }

    /** What the gateway gives the policy: reads pass through, writes fail. */
    private record ReadOnly(InMemoryPoolStore store) implements PoolStore {
        @Override
        public io.cronoq.events.PoolRecord pool() {
            return store.pool();
        }

        @Override
        public void putPool(io.cronoq.events.PoolRecord pool) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public io.cronoq.events.SharingRecord sharing() {
            return store.sharing();
        }

        @Override
        public void putSharing(io.cronoq.events.SharingRecord sharing) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public io.cronoq.events.LimitsRecord limits() {
            return store.limits();
        }

        @Override
        public void putLimits(io.cronoq.events.LimitsRecord limits) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public io.cronoq.events.TaskRecord task(String taskId) {
            return store.task(taskId);
        }

        @Override
        public io.cronoq.scheduler.policy.store.DependencyStore dependencies() {
            return store.dependencies(); // no dependency here: nothing reads or writes it
        }

        @Override
        public void putTask(io.cronoq.events.TaskRecord task) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public void deleteTask(String taskId) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public Iterable<io.cronoq.events.WorkerRecord> workers() {
            return store.workers();
        }

        @Override
        public void putWorker(io.cronoq.events.WorkerRecord worker) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public WaitingQueue waiting() {
            return store.waiting();
        }

        @Override
        public TimerQueue timers() {
            return store.timers();
        }

        @Override
        public TimerQueue expiries() {
            return store.expiries();
        }
    }

    private static TaskSubmitted at(TaskSubmitted task, long seconds) {
        task.setSubmittedAt(T0.plusSeconds(seconds));
        return task;
    }
}
