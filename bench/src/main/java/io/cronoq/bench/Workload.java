package io.cronoq.bench;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fleet and its tasks: pools {@code bench-pool-<k>-<n>} (pool {@code k} on partition
 * {@code k mod partitions}, see {@link PartitionedNames}, the same names in every run), groups labelled
 * {@code grp=g<j>}, workers {@code <name>-w<i>-<n>} (on assignments partition {@code i mod partitions})
 * spread round-robin over every group of every pool, and task {@code k} sent to pool {@code k mod P}
 * and group {@code (k / P) mod G}. A task carries, as its payload, the {@link System#nanoTime()} at
 * which it was (meant to be) submitted, so the worker that receives its assignment in this JVM
 * measures submission→assignment latency. With more than one tenant ({@link BenchTenants}) task {@code k}
 * runs for tenant {@code k mod tenants}, and every pool has a sharing policy for them; backlog tasks name
 * no tenant (a guaranteed tenant's backlog task waiting past the pool's grace could preempt the held slot).
 */
public final class Workload {

    /** The stem of every pool name: pool {@code k} is {@code bench-pool-<k>-<n>}. */
    public static final String POOL_STEM = "bench-pool-";
    /** The label that forms the groups. */
    public static final String GROUP_LABEL = "grp";
    /** The group of the backlog: tasks for it wait behind a worker that never finishes. */
    public static final String BACKLOG_GROUP = "backlog";

    private final String name;
    private final int pools;
    private final int groups;
    private final int workers;
    private final int slots;
    private final BenchTenants tenants;
    private final String[] poolNames;
    private final String[] workerIds;

    /**
     * @param name       a prefix of worker and task names, unique per run (letters, digits, '-')
     * @param pools      pools
     * @param groups     groups per pool
     * @param workers    workers in all (at least pools x groups)
     * @param slots      slots per worker
     * @param partitions partitions of the topics the pools and workers key
     */
    public Workload(String name, int pools, int groups, int workers, int slots, int partitions) {
        this(name, pools, groups, workers, slots, partitions, new BenchTenants(1));
    }

    /**
     * @param name       a prefix of worker and task names, unique per run (letters, digits, '-')
     * @param pools      pools
     * @param groups     groups per pool
     * @param workers    workers in all (at least pools x groups)
     * @param slots      slots per worker
     * @param partitions partitions of the topics the pools and workers key
     * @param tenants    the tenants the tasks run for
     */
    public Workload(String name, int pools, int groups, int workers, int slots, int partitions, BenchTenants tenants) {
        this.name = name;
        this.pools = pools;
        this.groups = groups;
        this.workers = workers;
        this.slots = slots;
        this.tenants = tenants;
        this.poolNames = new String[pools];
        for (int k = 0; k < pools; k++) {
            poolNames[k] = PartitionedNames.spread(POOL_STEM, k, partitions);
        }
        this.workerIds = new String[workers];
        for (int i = 0; i < workers; i++) {
            workerIds[i] = PartitionedNames.spread(name + "-w", i, partitions);
        }
    }

    /** Pool {@code index}: on partition {@code index mod partitions} of every topic keyed by pool. */
    public String pool(int index) {
        return poolNames[index];
    }

    /** Worker {@code index}: on partition {@code index mod partitions} of the assignments topic. */
    public String workerId(int index) {
        return workerIds[index];
    }

    /** The pool of task {@code k}. */
    public String poolOfTask(long k) {
        return pool((int) (k % pools));
    }

    /** The workers of pool {@code pool} when {@code workers} are spread round-robin over {@code pools}, as here. */
    public static int workersOfPool(int pool, int pools, int workers) {
        return workers / pools + (pool < workers % pools ? 1 : 0);
    }

    /**
     * Every pool's sharing policy for the tenants, pool by pool: each change keyed by its pool on the submissions
     * topic, as an admin's is. Empty with one tenant.
     */
    public List<SharingPolicySet> sharingPolicies(Instant at) {
        List<SharingPolicySet> all = new ArrayList<>();
        for (int k = 0; k < pools; k++) {
            all.addAll(tenants.policy(pool(k), (long) workersOfPool(k, pools, workers) * slots, at));
        }
        return all;
    }

    /** The labels of group {@code index} (of any pool). */
    public static Map<String, String> group(int index) {
        return Map.of(GROUP_LABEL, "g" + index);
    }

    /** Every worker's registration. */
    public List<WorkerRegistered> registrations(Instant at) {
        List<WorkerRegistered> all = new ArrayList<>(workers);
        for (int i = 0; i < workers; i++) {
            all.add(WorkerRegistered.newBuilder()
                    .setWorkerId(workerId(i))
                    .setPool(pool(i % pools))
                    .setLabels(group((i / pools) % groups))
                    .setSlots(slots)
                    .setRegisteredAt(at)
                    .build());
        }
        return all;
    }

    /** Task {@code k}, submitted at {@code at}, stamped with {@code stampNanos}. */
    public TaskSubmitted task(long k, long stampNanos, Instant at) {
        return TaskSubmitted.newBuilder()
                .setTaskId(name + "-t" + k)
                .setPool(poolOfTask(k))
                .setLabels(group((int) ((k / pools) % groups)))
                .setPayload(stamp(stampNanos))
                .setSubmittedAt(at)
                .setTenant(tenants.ofTask(k))
                .build();
    }

    /** The number {@code k} of task {@code taskId} made by {@link #task}, or -1 for a task it did not make. */
    public long indexOf(String taskId) {
        String stem = name + "-t";
        if (!taskId.startsWith(stem) || taskId.length() == stem.length()) {
            return -1;
        }
        long k = 0;
        for (int i = stem.length(); i < taskId.length(); i++) {
            char c = taskId.charAt(i);
            if (c < '0' || c > '9' || k > (Long.MAX_VALUE - 9) / 10) {
                return -1;
            }
            k = k * 10 + (c - '0');
        }
        return k;
    }

    /**
     * Task {@code k} of a fan-out and fan-in of {@code n} tasks: task 0 is the source and task {@code n - 1} the
     * reducer, both in the first pool; every other task waits for the source and is spread over the pools as
     * {@link #task} spreads them, and the reducer waits for all of them.
     */
    public TaskSubmitted fanTask(long k, long n, long stampNanos, Instant at) {
        TaskSubmitted task = task(k, stampNanos, at);
        if (k == 0 || k == n - 1) {
            task.setPool(pool(0));
        }
        if (k == n - 1) {
            java.util.List<io.cronoq.events.Dependency> shards = new java.util.ArrayList<>((int) n - 2);
            for (long i = 1; i < n - 1; i++) {
                shards.add(new io.cronoq.events.Dependency(name + "-t" + i, poolOfTask(i),
                        io.cronoq.events.ParentCondition.SUCCEEDED));
            }
            task.setAfter(shards);
        } else if (k > 0) {
            task.setAfter(new java.util.ArrayList<>(java.util.List.of(new io.cronoq.events.Dependency(name + "-t0",
                    pool(0), io.cronoq.events.ParentCondition.SUCCEEDED))));
        }
        return task;
    }

    /** The worker of the backlog's group: one slot, in the first pool, and it never finishes. */
    public WorkerRegistered backlogWorker(Instant at) {
        return WorkerRegistered.newBuilder()
                .setWorkerId(backlogWorkerId())
                .setPool(pool(0))
                .setLabels(Map.of(GROUP_LABEL, BACKLOG_GROUP))
                .setSlots(1)
                .setRegisteredAt(at)
                .build();
    }

    /** The id of the backlog's worker. */
    public String backlogWorkerId() {
        return name + "-backlog-w";
    }

    /** Backlog task {@code k}: for the saturated group of the first pool; it waits. */
    public TaskSubmitted backlogTask(long k, long stampNanos, Instant at) {
        return TaskSubmitted.newBuilder()
                .setTaskId(name + "-b" + k)
                .setPool(pool(0))
                .setLabels(Map.of(GROUP_LABEL, BACKLOG_GROUP))
                .setPayload(stamp(stampNanos))
                .setSubmittedAt(at)
                .build();
    }

    /** The 8-byte payload carrying a submission time. */
    public static ByteBuffer stamp(long nanos) {
        return ByteBuffer.allocate(Long.BYTES).putLong(0, nanos);
    }

    /** The submission time a payload carries, or -1 when it carries none. */
    public static long stampOf(ByteBuffer payload) {
        return payload != null && payload.remaining() == Long.BYTES ? payload.getLong(payload.position()) : -1;
    }
}
