package io.cronoq.scheduler.policy.bench;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Priority;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.PoolScheduler;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;

/**
 * What many short-lived tenants leave in one pool's memory: the heap (used, after full
 * collections) with the pool set up, then after {@code tenants} tenants each submitted one task to
 * each of {@code classes} requirement classes and every task ran. The tenants hold nothing, wait
 * for nothing and have no policy at the end, so the pool forgets them and the lines they left: the
 * heap should come back to where it was. Prints the three figures and the ratio. Run: see
 * README.md ({@code exec:exec@tenant-memory}); arguments: {@code [tenants] [classes]}, default
 * 10,000 and 100.
 */
public final class TenantMemoryCheck {

    private static final String POOL = "memory";
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");
    private static final ByteBuffer PAYLOAD = ByteBuffer.wrap(new byte[64]).asReadOnlyBuffer();
    private static final int WORKERS_PER_CLASS = 2;
    private static final int SLOTS = 16;

    private TenantMemoryCheck() {}

    public static void main(String[] args) {
        String[] given = String.join(" ", args).trim().split("\\s+"); // Maven passes them as one argument
        int tenants = given.length > 0 && !given[0].isEmpty() ? Integer.parseInt(given[0]) : 10_000;
        int classes = given.length > 1 ? Integer.parseInt(given[1]) : 100;
        PoolScheduler scheduler = new PoolScheduler(POOL, new LiveTasksStore());
        for (int c = 0; c < classes; c++) {
            for (int w = 0; w < WORKERS_PER_CLASS; w++) {
                scheduler.apply(new WorkerRegistered("w-" + c + "-" + w, POOL, Map.of("rack", "r" + c), SLOTS, null,
                        null, null, null, AT), AT);
            }
        }
        ArrayDeque<AttemptAssigned> running = new ArrayDeque<>();
        // One tenant's round first, so what every run of the pool builds once (code, classes) is counted before.
        submitRound(scheduler, running, "warm", 1, classes);
        runAll(scheduler, running);
        long before = usedAfterGc();

        submitRound(scheduler, running, "team", tenants, classes);
        long waiting = scheduler.snapshot().waiting();
        long loaded = usedAfterGc();
        runAll(scheduler, running);
        long after = usedAfterGc();

        System.out.printf("tenants %,d x classes %,d = %,d tasks (%,d waited at the peak)%n", tenants, classes,
                (long) tenants * classes, waiting);
        System.out.printf("heap used before: %,d KiB; with every task submitted: %,d KiB; after all ran: %,d KiB%n",
                before >> 10, loaded >> 10, after >> 10);
        System.out.printf("after / before: %.3f%n", (double) after / before);
    }

    private static void submitRound(PoolScheduler scheduler, ArrayDeque<AttemptAssigned> running, String stem,
                                    int tenants, int classes) {
        for (int t = 0; t < tenants; t++) {
            for (int c = 0; c < classes; c++) {
                TaskSubmitted task = new TaskSubmitted(stem + "-" + t + "-" + c, POOL, Map.of("rack", "r" + c), null,
                        PAYLOAD, Priority.NORMAL, null, null, null, null, 30_000L, null, List.of(), null, AT, null,
                        List.of(), List.of(), null, new java.util.ArrayList<>(), false, null);
                task.setTenant(stem + "-" + t);
                track(scheduler.apply(task, AT), running);
            }
        }
    }

    /** Starts and succeeds every running attempt, and those their freed slots go to, until none is left. */
    private static void runAll(PoolScheduler scheduler, ArrayDeque<AttemptAssigned> running) {
        while (!running.isEmpty()) {
            AttemptAssigned a = running.poll();
            scheduler.apply(new AttemptStarted(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(),
                    AT), AT);
            track(scheduler.apply(new AttemptSucceeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(),
                    a.getGeneration(), AT, null), AT), running);
        }
    }

    private static void track(List<Decision> decisions, ArrayDeque<AttemptAssigned> running) {
        for (Decision d : decisions) {
            if (d.event() instanceof AttemptAssigned a) {
                running.add(a);
            }
        }
    }

    private static long usedAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
