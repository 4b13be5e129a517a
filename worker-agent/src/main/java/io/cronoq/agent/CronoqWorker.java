package io.cronoq.agent;

import io.cronoq.events.WorkerResources;
import io.cronoq.schemas.rules.Quantities;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cronoq worker: registers in a pool with its labels, slots and resources, runs up to {@code slots} assigned
 * attempts at once with a {@link TaskHandler}, reports them, heartbeats, drains on request, and obeys fencing.
 * Build one with {@link #builder()}:
 *
 * <pre>{@code
 * CronoqWorker worker = CronoqWorker.builder()
 *         .bootstrap("kafka:9092").pool("inference").label("gpu", "a100").slots(4)
 *         .handler(ctx -> infer(ctx.payload(), ctx.group()))
 *         .build()
 *         .start();
 * ...
 * worker.drain().join();   // finish what runs, take nothing new, leave
 * }</pre>
 *
 * It survives broker outages: Kafka's clients reconnect, events that could not be written are retried until they
 * are, and its loops log and carry on. Thread-safe.
 */
public final class CronoqWorker implements AutoCloseable {

    /** Where a worker is in its life. */
    public enum State {
        /** Built, not started. */
        CREATED,
        /** Registration sent; waiting for the scheduler's answer (its generation). */
        REGISTERING,
        /** Registered: takes and runs attempts. */
        ACTIVE,
        /** Takes nothing new; finishes what runs, then leaves. */
        DRAINING,
        /** Drained and reported that it left. */
        LEFT,
        /** Stopped at once ({@link #stopNow}, {@link #close()}); running attempts were reported failed. */
        STOPPED,
        /** Its id was registered again by another process; it stopped taking work. */
        FENCED,
        /** The scheduler refused its registration. */
        REJECTED;

        /** Whether the worker is done for good. */
        public boolean terminal() {
            return this == LEFT || this == STOPPED || this == FENCED || this == REJECTED;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(CronoqWorker.class);

    private final WorkerOptions options;
    private final WorkerSettings settings;
    /** The process's connection this worker shares (embedded groups), or null to open its own. */
    private final WorkerConnection shared;
    private final CompletableFuture<State> closed = new CompletableFuture<>();
    private volatile WorkerCore core;

    CronoqWorker(WorkerOptions options, WorkerConnection shared) {
        this.options = options;
        this.settings = options.settings();
        this.shared = shared;
    }

    /** A builder with the defaults: {@code localhost:9092}, prefix {@code cronoq.}, one slot per core. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Detects resources, connects, registers, and waits (at most the registration timeout) for the scheduler's
     * answer. Returns the started worker: {@link State#ACTIVE} when the scheduler answered in time, else
     * {@link State#REGISTERING} (it keeps waiting, e.g. for a scheduler that is starting).
     *
     * @throws RegistrationRejectedException when the scheduler refused the registration (the worker is stopped)
     * @throws IllegalStateException         when started twice
     */
    public CronoqWorker start() {
        synchronized (this) {
            if (core != null) {
                throw new IllegalStateException("worker " + settings.id() + " was started already");
            }
            WorkerResources resources = options.detector().detect(options.workDir(), options.packages(),
                    options.overrides());
            log.info("Worker {} publishes resources: {} cpu, {} memory, {} disk, {} GPU(s), "
                    + "packages {}", settings.id(), Quantities.formatCpu(resources.getCpuMillis()),
                    Quantities.formatBytes(resources.getMemoryBytes()),
                    Quantities.formatBytes(resources.getDiskBytes()), resources.getGpus().size(),
                    resources.getPackages());
            WorkerConnection connection = shared != null ? shared : WorkerConnection.open(options, settings.id());
            WorkerConnection.Member member = connection.attach(settings.id());
            if (shared == null) {
                connection.release(); // the worker's member holds its own connection from now on
            }
            ExecutorService ownExecutor = options.executor() == null ? slotThreads() : null;
            core = new WorkerCore(settings, options.handler(), ownExecutor != null ? ownExecutor : options.executor(),
                    member, connection.timers(), options.clock(), resources);
            WorkerCore started = core;
            started.termination().whenComplete((state, error) -> releaseAsync(started, member, ownExecutor));
            member.startReading(started);
            member.startHeartbeats(started, settings.heartbeatInterval());
        }
        try {
            core.activation().get(settings.registrationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("Worker {} has no answer from the scheduler after {}; it keeps waiting (is the scheduler "
                    + "running on the same topics, prefix '{}'?)", settings.id(), settings.registrationTimeout(),
                    options.topicPrefix());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RegistrationRejectedException rejected) {
                closed.join();
                throw rejected;
            }
            throw new IllegalStateException("worker " + settings.id() + " failed to start", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopNow("interrupted while starting");
        }
        return this;
    }

    /**
     * Drains: reports {@code WorkerDraining} (the scheduler assigns nothing new), finishes the running attempts,
     * then reports {@code WorkerLeft}. The future completes with the final state once the worker has left and
     * released its clients.
     */
    public CompletableFuture<State> drain() {
        WorkerCore c = core;
        if (c == null) {
            throw new IllegalStateException("worker " + settings.id() + " was not started");
        }
        c.drain();
        return closed;
    }

    /**
     * Stops at once: cancels the running attempts (interrupting their threads), reports them as failed and
     * retryable, reports that it left, and releases its clients.
     */
    public void stopNow(String reason) {
        WorkerCore c = core;
        if (c != null) {
            c.stopNow(reason);
        }
    }

    /** Stops at once unless already finished ({@link #stopNow}), and waits up to 30 s until the clients are released. */
    @Override
    public void close() {
        WorkerCore c = core;
        if (c == null) {
            return;
        }
        c.stopNow("closed");
        awaitTermination(Duration.ofSeconds(30));
    }

    /** Waits until the worker has finished and released its clients; returns whether it did in time. */
    public boolean awaitTermination(Duration timeout) {
        try {
            closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Completes with the final state once the worker has finished and released its clients. */
    public CompletableFuture<State> terminated() {
        return closed;
    }

    /** Simulates a crash: stops without a word to the scheduler (no failure reports, no leave). For tests. */
    void halt() {
        WorkerCore c = core;
        if (c != null) {
            c.halt("halted");
            awaitTermination(Duration.ofSeconds(30));
        }
    }

    /** The worker's id. */
    public String id() {
        return settings.id();
    }

    /** The worker's pool. */
    public String pool() {
        return settings.pool();
    }

    /** The labels the worker registers with. */
    public Map<String, String> labels() {
        return settings.labels();
    }

    /** The slots the worker registers with: at most this many attempts run at once. */
    public int slots() {
        return settings.slots();
    }

    /** The address the worker advertises to the members of the gangs it runs; empty when it advertises none. */
    public Optional<String> address() {
        return Optional.ofNullable(settings.address());
    }

    /** Where the worker is in its life. */
    public State state() {
        WorkerCore c = core;
        return c == null ? State.CREATED : c.state();
    }

    /** The generation the scheduler gave the current registration; 0 before the first answer. */
    public long generation() {
        WorkerCore c = core;
        return c == null ? 0 : c.generation();
    }

    /** The labels of the worker's group as the scheduler answered them; empty before the first answer. */
    public Map<String, String> group() {
        WorkerCore c = core;
        return c == null ? Map.of() : c.group();
    }

    /** The attempts running now. */
    public List<AttemptId> runningAttempts() {
        WorkerCore c = core;
        return c == null ? List.of() : c.running();
    }

    /** Why the worker finished (drained, stopped, fenced, rejected), once it has. */
    public Optional<String> endReason() {
        WorkerCore c = core;
        return c == null ? Optional.empty() : c.endReason();
    }

    @Override
    public String toString() {
        return "CronoqWorker{" + settings.id() + " in " + settings.pool() + " " + settings.labels() + ", "
                + state() + ", generation " + generation() + "}";
    }

    private ExecutorService slotThreads() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(settings.slots(), settings.slots(), 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), Threads.numbered("cronoq-attempt-" + settings.id()));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Releases everything on a thread of its own: termination may be decided on the reading thread itself. */
    private void releaseAsync(WorkerCore ended, WorkerConnection.Member member, ExecutorService ownExecutor) {
        Threads.named("cronoq-release-" + settings.id()).newThread(() -> {
            try {
                member.stopReading();
                if (ownExecutor != null) {
                    // A drained worker has nothing running; anything else was cancelled and is interrupted again.
                    ownExecutor.shutdownNow();
                }
                member.close(Duration.ofSeconds(10));
                log.info("Worker {} finished ({})", settings.id(), ended.state());
            } finally {
                closed.complete(ended.state());
            }
        }).start();
    }

    /** The consumer group of a worker's offsets on its assignments partition. */
    public static String groupId(String workerId) {
        return "cronoq-worker-" + workerId;
    }

    /** Builds a {@link CronoqWorker}; every setting has a default except the pool and the handler. */
    public static final class Builder extends WorkerOptions.Builder<Builder> {

        private Builder() {
        }

        /** The worker id (default: host name and process id); each worker process needs its own. */
        public Builder id(String workerId) {
            this.id = workerId;
            return this;
        }

        /** The pool to work for (required). */
        public Builder pool(String poolName) {
            this.pool = poolName;
            return this;
        }

        /** Adds a label; the workers of a pool with the same labels form a group. */
        public Builder label(String name, String value) {
            labels.put(name, value);
            return this;
        }

        /** Adds labels. */
        public Builder labels(Map<String, String> more) {
            labels.putAll(more);
            return this;
        }

        /** How many attempts run at once (default: the number of cores). */
        public Builder slots(int n) {
            this.slots = n;
            return this;
        }

        /**
         * The application's executor to run attempts on (embedded mode); by default the worker runs them on its own
         * pool of {@code slots} threads. The worker never submits more than the scheduler assigned it.
         */
        public Builder executor(Executor applicationExecutor) {
            this.executor = applicationExecutor;
            return this;
        }

        /** The directory whose free disk is published (default: the current directory). */
        public Builder workDir(Path dir) {
            this.workDir = dir;
            return this;
        }

        /** Publishes an installed package and its version (e.g. {@code torch}, {@code 2.1.0}). */
        public Builder installedPackage(String name, String version) {
            packages.put(name, version);
            return this;
        }

        /** Publishes installed packages, name → version. */
        public Builder installedPackages(Map<String, String> nameToVersion) {
            packages.putAll(nameToVersion);
            return this;
        }

        /** Publishes this many thousandths of a core instead of the detected cores. */
        public Builder cpuMillis(long millis) {
            overrides = overrides.withCpuMillis(millis);
            return this;
        }

        /** Publishes this memory instead of the detected memory. */
        public Builder memoryBytes(long bytes) {
            overrides = overrides.withMemoryBytes(bytes);
            return this;
        }

        /** Publishes this free disk instead of the work directory's. */
        public Builder diskBytes(long bytes) {
            overrides = overrides.withDiskBytes(bytes);
            return this;
        }

        /**
         * Publishes {@code count} GPUs instead of the detected ones (0 hides them); missing ones are published with
         * {@code memoryBytesEach} of memory.
         */
        public Builder gpus(int count, long memoryBytesEach) {
            overrides = overrides.withGpus(count, memoryBytesEach);
            return this;
        }

        /** All overrides at once. */
        public Builder resourceOverrides(ResourceOverrides all) {
            this.overrides = Objects.requireNonNull(all, "all");
            return this;
        }

        /**
         * Checks the settings with cronoq's input rules and builds the worker (not started).
         *
         * @throws io.cronoq.schemas.rules.InvalidInputException naming the field that breaks a rule
         * @throws IllegalStateException                        without a handler
         */
        public CronoqWorker build() {
            return new CronoqWorker(options(), null);
        }
    }
}
