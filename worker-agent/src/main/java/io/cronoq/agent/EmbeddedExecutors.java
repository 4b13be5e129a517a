package io.cronoq.agent;

import io.cronoq.schemas.rules.InvalidInputException;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embedded mode ({@code setGroupCapacity(pool, labels, n)}): an application that runs tasks on its
 * own executors reports the capacity of each group it serves and receives the attempts of those groups. Each
 * (pool, labels) is one worker identity ({@code <name>.<pool>.<labels hash>}) with {@code n} slots whose attempts
 * go to that group's handler and executor; {@code ctx.group()} is the group's labels.
 *
 * <p>Changing a group's capacity never re-queues running attempts: an idle group is drained and registered again
 * with the new capacity under the same identity; a busy group gets a new identity with the new capacity at once
 * while the old one drains (it finishes what runs and leaves). Meanwhile the application's executor may hold the
 * old identity's running attempts on top of the new capacity. A capacity of 0 drains the group away.
 *
 * <p>All the groups share one connection to Kafka (one producer, one assignments consumer), each still registering,
 * heartbeating and being fenced as its own worker; it is opened with the first group and closed once the last one
 * and the embedded executors themselves are done with it. Thread-safe.
 */
public final class EmbeddedExecutors implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedExecutors.class);

    private final String name;
    /** The options every group shares; each group's worker gets its identity, handler and executor on top. */
    private final WorkerOptions shared;
    /** The address every group's worker advertises to its gangs' members; null for none. */
    private final String address;
    private final Map<GroupKey, ExecutorGroup> groups = new LinkedHashMap<>();
    /** Workers draining after a capacity change; a concurrent list, as their completion callbacks take no lock. */
    private final List<CronoqWorker> retiring = new CopyOnWriteArrayList<>();

    /** The groups' shared connection, opened with the first group; null until then and once let go. */
    private WorkerConnection connection;

    private EmbeddedExecutors(String name, WorkerOptions shared, String address) {
        this.name = name;
        this.shared = shared;
        this.address = address;
    }

    /** A builder; give at least a default handler, or one per group in {@link #setGroupCapacity}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Sets the capacity of the unlabeled group of a pool (a pool without labels has just this one). */
    public void setCapacity(String pool, int n) {
        setGroupCapacity(pool, Map.of(), n);
    }

    /** Sets a group's capacity, run by the default handler on the group worker's own threads. */
    public void setGroupCapacity(String pool, Map<String, String> labels, int n) {
        setGroupCapacity(pool, labels, n, null, null);
    }

    /**
     * Sets a group's capacity and where its attempts run. Returns once the scheduler has answered the group's
     * registration (or the registration timeout passed).
     *
     * @param executor the application's executor for this group, or {@code null} for the worker's own threads
     * @param handler  the handler for this group, or {@code null} for the default handler
     * @throws InvalidInputException naming the pool, a label or the capacity when one breaks cronoq's rules
     */
    public synchronized void setGroupCapacity(String pool, Map<String, String> labels, int n, Executor executor,
                                              TaskHandler handler) {
        Violation.first(Rules.pool(pool), Rules.labels(labels)).ifPresent(v -> {
            throw v.toException();
        });
        if (n < 0 || n > Rules.MAX_SLOTS) {
            throw new InvalidInputException("capacity", "capacity is " + n + "; a group has 0 (none) to "
                    + Rules.MAX_SLOTS + " slots");
        }
        TaskHandler effective = handler != null ? handler : shared.handler();
        if (effective == null && n > 0) {
            throw new IllegalStateException("no handler for group " + labels + " of pool " + pool
                    + ": give one here or a default one to the builder");
        }
        GroupKey key = new GroupKey(pool, new TreeMap<>(labels));
        ExecutorGroup group = groups.get(key);
        if (group == null) {
            if (n > 0) {
                ExecutorGroup created = new ExecutorGroup(baseId(key), n, executor, effective);
                created.worker = start(created, created.baseId, key);
                groups.put(key, created);
            }
            return;
        }
        if (n == group.capacity && executor == group.executor && effective == group.handler) {
            return;
        }
        CronoqWorker old = group.worker;
        if (n == 0) {
            log.info("ExecutorGroup {} of pool {} goes to capacity 0: draining {}", labels, pool, old.id());
            groups.remove(key);
            retire(old);
            return;
        }
        group.capacity = n;
        group.executor = executor;
        group.handler = effective;
        if (old.runningAttempts().isEmpty()) {
            // Leave first, then register again: the scheduler sees a clean leave and a new generation, nothing lost.
            log.info("ExecutorGroup {} of pool {}: capacity {} -> {}; re-registering idle {}", labels, pool, old.slots(), n,
                    old.id());
            old.drain().join();
            group.worker = start(group, old.id(), key);
        } else {
            group.epoch++;
            String id = group.baseId + "-e" + group.epoch;
            log.info("ExecutorGroup {} of pool {}: capacity {} -> {} while {} attempt(s) run; {} takes over and {} drains",
                    labels, pool, old.slots(), n, old.runningAttempts().size(), id, old.id());
            group.worker = start(group, id, key);
            retire(old);
        }
    }

    /** The capacity reported for each group. */
    public synchronized Map<GroupKey, Integer> capacities() {
        Map<GroupKey, Integer> out = new LinkedHashMap<>();
        groups.forEach((k, g) -> out.put(k, g.capacity));
        return out;
    }

    /** The worker that currently stands for a group, if the group has capacity. */
    public synchronized Optional<CronoqWorker> worker(String pool, Map<String, String> labels) {
        ExecutorGroup g = groups.get(new GroupKey(pool, new TreeMap<>(labels)));
        return g == null ? Optional.empty() : Optional.of(g.worker);
    }

    /** Drains every group: running attempts finish, nothing new is taken; completes when all have left. */
    public synchronized CompletableFuture<Void> drain() {
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (ExecutorGroup g : groups.values()) {
            all.add(g.worker.drain());
        }
        groups.clear();
        for (CronoqWorker w : retiring) {
            all.add(w.terminated());
        }
        WorkerConnection drained = connection;
        CompletableFuture<Void> left = CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
        left.whenCompleteAsync((ok, error) -> letGo(drained)); // not on a worker's thread, which must not wait
        return left;
    }

    /** Stops every group at once (running attempts are reported failed and retryable). */
    @Override
    public synchronized void close() {
        for (ExecutorGroup g : groups.values()) {
            g.worker.close();
        }
        groups.clear();
        for (CronoqWorker w : retiring) {
            w.close();
        }
        retiring.clear();
        letGo(connection);
    }

    /** Lets go of the embedded executors' hold on {@code held}; its groups' workers keep it open while they run. */
    private synchronized void letGo(WorkerConnection held) {
        if (held != null && held == connection) {
            connection = null;
            held.release();
        }
    }

    private void retire(CronoqWorker worker) {
        retiring.add(worker);
        worker.drain().whenComplete((state, error) -> retiring.remove(worker));
    }

    private CronoqWorker start(ExecutorGroup group, String id, GroupKey key) {
        WorkerOptions options = shared.forWorker(id, key.pool(), key.labels(), group.capacity, address, group.handler,
                group.executor);
        if (connection == null) {
            connection = WorkerConnection.open(options, name);
        }
        return new CronoqWorker(options, connection).start();
    }

    private String baseId(GroupKey key) {
        String labels = key.labels().isEmpty() ? "unlabeled"
                : Integer.toHexString(Utils.murmur2(key.labelsText().getBytes(StandardCharsets.UTF_8)));
        return name + "." + key.pool() + "." + labels;
    }

    /**
     * One group of one pool.
     *
     * @param pool   the pool
     * @param labels the group's labels, sorted by name
     */
    public record GroupKey(String pool, Map<String, String> labels) {

        public GroupKey {
            Objects.requireNonNull(pool, "pool");
            labels = java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
        }

        String labelsText() {
            StringBuilder sb = new StringBuilder();
            labels.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ",").append(k).append('=').append(v));
            return sb.toString();
        }
    }

    private static final class ExecutorGroup {
        final String baseId;
        int capacity;
        Executor executor;
        TaskHandler handler;
        int epoch = 1;
        CronoqWorker worker;

        ExecutorGroup(String baseId, int capacity, Executor executor, TaskHandler handler) {
            this.baseId = baseId;
            this.capacity = capacity;
            this.executor = executor;
            this.handler = handler;
        }
    }

    /** Builds {@link EmbeddedExecutors}; its Kafka, pacing, credential and detector settings serve every group. */
    public static final class Builder extends WorkerOptions.Builder<Builder> {
        private String name;

        private Builder() {
        }

        /** The application's name, the stem of its group workers' ids (default: host name and process id). */
        public Builder name(String applicationName) {
            this.name = applicationName;
            return this;
        }

        /**
         * Builds the embedded executors (no group yet).
         *
         * @throws InvalidInputException naming the name when it cannot stand at the start of a worker id, or the
         *                               address when a peer could not dial it
         */
        public EmbeddedExecutors build() {
            String stem = name != null ? name : WorkerIds.defaultId();
            Rules.workerId(stem).ifPresent(v -> {
                throw new InvalidInputException("name", "the application name is a worker id stem; " + v.message());
            });
            String advertised = advertised();
            WorkerAddress.check("address", advertised).ifPresent(v -> {
                throw v.toException();
            });
            return new EmbeddedExecutors(stem, template(), advertised);
        }
    }
}
