package io.cronoq.scheduler.policy.bench;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.Gpu;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.Priority;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Decisions per second of one pool's placement on one thread, in steady state: 1,000 workers in 100
 * groups (16 slots each, all busy) with a backlog of 2,000 servable tasks; each operation submits a
 * task (it waits), starts and succeeds the oldest running attempt, whose freed slot goes to the next
 * waiting task it can serve. {@code blocked} adds that many tasks waiting for a GPU worker whose
 * slots are all taken for good: the cost of a decision must not grow with tasks that cannot use the
 * freed slot. {@code tasks=resources} makes it resource-constrained: every worker publishes
 * resources (two machine shapes per group, so 200 profiles), half the tasks request cpu, memory or
 * packages that only one of the shapes has, and the blocked tasks need a free GPU. {@code tenants=100}
 * spreads every task over 100 tenants sharing the pool (weights 1 to 4; with {@code quotaMix=mixed},
 * the default, a tenth of them guaranteed slots and a tenth bounded by a max on the {@code disk=ssd}
 * workers: 50 and 40 slots with 100 tenants, scaled to the number of tenants), so each freed slot
 * also weighs the tenants' shares: each requirement class has a line per tenant. {@code keys=10000} gives every servable task one of that many concurrency keys, each
 * with a max of 2: the pool runs about 1.6 attempts per key, so some keys are full and their tasks
 * wait in lines of their own, held back, while the freed slots go past them. Decisions are counted in the
 * {@code decisions} secondary result. Run: see README.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PlacementBenchmark {

    private static final String POOL = "bench";
    private static final int GROUPS = 100;
    private static final int WORKERS_PER_GROUP = 10;
    private static final int SLOTS = 16;
    private static final int BACKLOG = 2_000;
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");
    private static final ByteBuffer PAYLOAD = ByteBuffer.wrap(new byte[64]).asReadOnlyBuffer();
    private static final Map<String, String> GPU = Map.of("gpu", "a100");
    /** With 100 tenants, a guaranteed tenant's slots of the pool and a bounded one's max of the ssd workers. */
    private static final int GUARANTEED_OF_100 = 50;
    private static final int MAX_OF_100 = 40;

    /** Tasks waiting for the saturated GPU worker. */
    @Param({"0", "1000000"})
    public int blocked;

    /** {@code labels}: tasks require labels only; {@code resources}: also cpu, memory, packages, GPUs. */
    @Param({"labels", "resources"})
    public String tasks;

    /**
     * Tenants the tasks are spread over: 1 (all of them the default tenant), or that many sharing the
     * pool (the curve: {@code -p tenants=1,10,100,1000,10000}).
     */
    @Param({"1", "100"})
    public int tenants;

    /** With many tenants: {@code mixed} (ten guaranteed, ten bounded by a max) or {@code none} (weights only). */
    @Param({"mixed"})
    public String quotaMix;

    /** Distinct concurrency keys the servable tasks hold, each with a max of 2 (0: none). */
    @Param({"0"})
    public int keys;

    /**
     * Members of a gang submitted every {@value #GANG_EVERY} operations among the single tasks (0: no
     * gangs; the gang case: {@code -p gang=8,64}). A gang reserves its slots at once and is placed
     * whole when they are free; its members then run and end like single tasks.
     */
    @Param({"0"})
    public int gang;

    /** Operations between two gangs, when {@link #gang} is set. */
    private static final int GANG_EVERY = 200;
    private int gangs;
    private long gangMembersAssigned;

    private PoolScheduler scheduler;
    private final ArrayDeque<AttemptAssigned> running = new ArrayDeque<>();
    private List<Map<String, String>> taskLabels;
    private List<ResourceRequest> taskNeeds;
    private int[] classOf;
    private int[] needOf;
    private String[] tenantNames;
    private String[] keyNames;
    private int next;

    /** Decisions returned, reported per second next to the operations. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters {
        public long decisions;
        /** Members of gangs assigned (each gang whole, in one decision). */
        public long gangMembers;
    }

    @Setup(Level.Trial)
    public void setUp() {
        boolean withResources = tasks.equals("resources");
        keyNames = new String[keys];
        for (int k = 0; k < keys; k++) {
            keyNames[k] = "customer-" + k;
        }
        scheduler = new PoolScheduler(POOL, new LiveTasksStore(),
                io.cronoq.scheduler.policy.TimeRules.DEFAULT.withGangReservation(0, 3_600_000));
        tenantNames = new String[tenants];
        for (int t = 0; t < tenants; t++) {
            tenantNames[t] = tenants == 1 ? null : "team-" + t;
            if (tenants > 1) {
                List<TenantQuota> quotas = quotaMix.equals("none") ? null
                        : t % 10 == 1 ? List.of(new TenantQuota(Map.of(), scaled(GUARANTEED_OF_100), null))
                        : t % 10 == 2 ? List.of(new TenantQuota(Map.of("disk", "ssd"), 0, scaled(MAX_OF_100))) : null;
                scheduler.apply(new SharingPolicySet(POOL, tenantNames[t], 1.0 + t % 4, quotas, null, null, "bench", AT),
                        AT);
            }
        }
        // Groups: rack rNN; even racks also carry disk=ssd (so some groups are more specialized).
        taskLabels = new ArrayList<>();
        taskLabels.add(Map.of());
        taskLabels.add(Map.of("disk", "ssd"));
        for (int g = 0; g < GROUPS; g++) {
            Map<String, String> labels = new HashMap<>();
            labels.put("rack", "r" + g);
            if (g % 2 == 0) {
                labels.put("disk", "ssd");
            }
            taskLabels.add(Map.of("rack", "r" + g));
            for (int w = 0; w < WORKERS_PER_GROUP; w++) {
                WorkerResources shape = !withResources ? null : w % 2 == 0 ? small() : big();
                scheduler.apply(new WorkerRegistered("w-" + g + "-" + w, POOL, labels, SLOTS, shape, null, null, null,
                        AT), AT);
            }
        }
        // Half the tasks need no label, a tenth need disk=ssd, the rest one rack.
        Random random = new Random(42);
        classOf = new int[1 << 16];
        for (int i = 0; i < classOf.length; i++) {
            int roll = random.nextInt(10);
            classOf[i] = roll < 5 ? 0 : roll < 6 ? 1 : 2 + random.nextInt(GROUPS);
        }
        // With resources, half the tasks need something: either shape, or only the big one.
        taskNeeds = new ArrayList<>();
        taskNeeds.add(null);
        taskNeeds.add(new ResourceRequest(4_000L, 16L << 30, null, null, List.of()));
        taskNeeds.add(new ResourceRequest(null, 8L << 30, null, null, List.of()));
        taskNeeds.add(new ResourceRequest(16_000L, 64L << 30, null, null, List.of()));
        taskNeeds.add(new ResourceRequest(null, null, null, null, List.of("torch>=2.0,<3", "numpy")));
        needOf = new int[1 << 16];
        for (int i = 0; i < needOf.length; i++) {
            needOf[i] = !withResources || random.nextBoolean() ? 0 : 1 + random.nextInt(taskNeeds.size() - 1);
        }
        // The GPU worker: saturated by tasks that never finish, then the blocked backlog behind it.
        WorkerResources gpuShape = withResources ? new WorkerResources(16_000L, 128L << 30, 1L << 40,
                List.of(new Gpu(0, "a100", 80L << 30, 80L << 30)), Map.of("torch", "2.1.0")) : null;
        ResourceRequest gpuNeed = withResources ? new ResourceRequest(null, 32L << 30, null, 1, List.of()) : null;
        scheduler.apply(new WorkerRegistered("gpu-0", POOL, GPU, SLOTS, gpuShape, null, null, null, AT), AT);
        for (int i = 0; i < SLOTS + blocked; i++) {
            TaskSubmitted gpuTask = task("gpu-" + i, GPU, gpuNeed);
            gpuTask.setTenant(tenantNames[i % tenants]);
            scheduler.apply(gpuTask, AT);
        }
        // Saturate the pool and build the servable backlog. With resources, a task may wait while a
        // worker it cannot use is free: submit until the backlog is there.
        long waiting = 0;
        for (int i = 0; withResources ? waiting < BACKLOG : i < GROUPS * WORKERS_PER_GROUP * SLOTS + BACKLOG; i++) {
            for (Decision d : submitDecisions()) {
                waiting += d.event() instanceof TaskWaiting ? 1 : 0;
            }
        }
        if (keys == 0 && scheduler.snapshot().waiting() != BACKLOG + blocked) {
            throw new IllegalStateException("unexpected backlog: " + scheduler.snapshot());
        }
    }

    /**
     * A quota sized for 100 tenants, scaled to this many (at least 1), so that the guarantees and
     * maxima keep their part of the pool along the curve.
     */
    private int scaled(int of100) {
        return Math.max(1, of100 * 100 / tenants);
    }

    private static WorkerResources small() {
        return new WorkerResources(8_000L, 32L << 30, 200L << 30, List.of(), Map.of("torch", "1.13.1"));
    }

    private static WorkerResources big() {
        return new WorkerResources(32_000L, 128L << 30, 1L << 40, List.of(),
                Map.of("torch", "2.1.0", "numpy", "1.26.4"));
    }

    @Benchmark
    public void submitStartSucceed(Counters counters) {
        long decisions = submitNext();
        if (gang > 0 && next % GANG_EVERY == 0) {
            decisions += submitGang();
        }
        AttemptAssigned oldest = running.poll();
        decisions += scheduler.apply(new AttemptStarted(oldest.getTaskId(), POOL, oldest.getAttempt(),
                oldest.getWorkerId(), oldest.getGeneration(), AT), AT).size();
        List<Decision> done = scheduler.apply(new AttemptSucceeded(oldest.getTaskId(), POOL, oldest.getAttempt(),
                oldest.getWorkerId(), oldest.getGeneration(), AT, null), AT);
        track(done);
        counters.decisions += decisions + done.size();
        counters.gangMembers += gangMembersAssigned;
        gangMembersAssigned = 0;
    }

    /** A gang of {@link #gang} members that need no label, of the next task's tenant. */
    private int submitGang() {
        String id = "gang-" + gangs++;
        List<TaskSubmitted> members = new ArrayList<>(gang);
        for (int rank = 0; rank < gang; rank++) {
            TaskSubmitted m = task(id + "-" + rank, Map.of(), null);
            m.setTenant(tenantNames[next % tenants]);
            members.add(m);
        }
        List<Decision> out = scheduler.apply(new io.cronoq.events.GangSubmitted(id, POOL,
                io.cronoq.events.GangPlacement.ANY, null, members, "bench", AT), AT);
        track(out);
        return out.size();
    }

    private int submitNext() {
        return submitDecisions().size();
    }

    private List<Decision> submitDecisions() {
        int n = next++;
        int i = n & (classOf.length - 1);
        TaskSubmitted t = task("t" + n, taskLabels.get(classOf[i]), taskNeeds.get(needOf[i]));
        t.setTenant(tenantNames[n % tenants]);
        if (keys > 0) {
            t.setConcurrency(List.of(new ConcurrencyKey(keyNames[n % keys], 2)));
        }
        List<Decision> out = scheduler.apply(t, AT);
        track(out);
        return out;
    }

    private void track(List<Decision> decisions) {
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i).event() instanceof AttemptAssigned a && !a.getTaskId().startsWith("gpu-")) {
                running.add(a);
                gangMembersAssigned += a.getGang() != null ? 1 : 0;
            }
        }
    }

    private static TaskSubmitted task(String id, Map<String, String> labels, ResourceRequest needs) {
        return new TaskSubmitted(id, POOL, labels, needs, PAYLOAD, Priority.NORMAL, null, null, null, null, 30_000L,
                null, List.of(), null, AT, null, java.util.List.of(), java.util.List.of(), null, new java.util.ArrayList<>(), false, null);
    }

    /** Runs this benchmark; arguments are JMH options (e.g. {@code -f 2 -wi 5}). */
    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        String[] options = Arrays.stream(String.join(" ", args).trim().split("\\s+"))
                .filter(a -> !a.isEmpty()).toArray(String[]::new);
        new Runner(new OptionsBuilder()
                .parent(new CommandLineOptions(options))
                .include(PlacementBenchmark.class.getName())
                .build()).run();
    }
}
