package io.cronoq.bench;

import io.cronoq.agent.CronoqWorker;
import io.cronoq.agent.ResourceDetector;
import io.cronoq.agent.TaskContext;
import io.cronoq.events.WorkerRegistered;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet as real worker agents: a {@link CronoqWorker} in this JVM for each registration of the
 * workload (the id, pool, labels and slots a simulated worker would have), each with its own Kafka
 * clients as a worker process has, their attempts run on one shared pool of threads by a handler that
 * records submission→handler latency from the stamp in the payload and returns at once (or after the
 * run time). The agents report as they do; a held worker's handler waits until it is cancelled.
 */
final class AgentFleet extends Fleet {

    private static final Logger log = LoggerFactory.getLogger(AgentFleet.class);
    /** How long an agent's start waits for the scheduler's answer: past a drain's pre-submission, so it never warns. */
    private static final Duration REGISTRATION_WAIT = Duration.ofMinutes(10);
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);
    /** What every agent publishes: fixed, so no probe (nvidia-smi) runs once per agent. */
    private static final ResourceDetector RESOURCES = new ResourceDetector(() -> 1000L, () -> 1L << 30, List::of);

    private final String bootstrap;
    private final String topicPrefix;
    private final long runMs;
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private final Map<String, CronoqWorker> agents = new ConcurrentHashMap<>();
    private final Map<String, RuntimeException> failures = new ConcurrentHashMap<>();
    private final ExecutorService attempts = Executors.newCachedThreadPool(daemon("bench-agent-attempt-"));
    private final ExecutorService starts = Executors.newCachedThreadPool(daemon("bench-agent-start-"));

    private AgentFleet(String bootstrap, String topicPrefix, long runMs) {
        this.bootstrap = bootstrap;
        this.topicPrefix = topicPrefix;
        this.runMs = runMs;
    }

    /**
     * A fleet of agents for the topics under {@code topicPrefix}; they start with {@link #register}.
     *
     * @param runMs how long each attempt's handler runs (0: it returns at once)
     */
    static AgentFleet start(String bootstrap, String topicPrefix, long runMs) {
        return new AgentFleet(bootstrap, topicPrefix, runMs);
    }

    /**
     * Starts an agent for each registration, all at once; returns when each has sent its registration (an agent
     * starting before the scheduler keeps waiting for its answer in the background).
     */
    @Override
    public void register(Collection<WorkerRegistered> workers) {
        List<CronoqWorker> started = new ArrayList<>();
        for (WorkerRegistered w : workers) {
            String id = w.getWorkerId();
            CronoqWorker agent = CronoqWorker.builder().bootstrap(bootstrap).topicPrefix(topicPrefix).id(id)
                    .pool(w.getPool()).labels(w.getLabels()).slots(w.getSlots())
                    .handler(held.contains(id) ? this::holdForever : this::run).executor(attempts)
                    .registrationTimeout(REGISTRATION_WAIT).resourceDetector(RESOURCES).build();
            agents.put(id, agent);
            started.add(agent);
            starts.execute(() -> {
                try {
                    agent.start();
                } catch (RuntimeException e) {
                    failures.put(id, e);
                    log.warn("Agent {} did not start: {}", id, e.toString());
                }
            });
        }
        Waits.until(() -> started.stream().allMatch(a -> failed(a.id()) || a.state() != CronoqWorker.State.CREATED),
                Duration.ofSeconds(120), "the " + started.size() + " agents to register");
    }

    /** Whether every one of these agents is active: the scheduler accepted it. */
    @Override
    public boolean accepted(Collection<String> workerIds) {
        for (String id : workerIds) {
            if (failed(id)) {
                throw new IllegalStateException("agent " + id + " did not start: " + failures.get(id).getMessage(),
                        failures.get(id));
            }
            CronoqWorker agent = agents.get(id);
            if (agent == null || agent.state() != CronoqWorker.State.ACTIVE) {
                if (agent != null && agent.state().terminal()) {
                    throw new IllegalStateException("agent " + id + " ended (" + agent.state() + "): "
                            + agent.endReason().orElse("no reason given"));
                }
                return false;
            }
        }
        return true;
    }

    @Override
    public void hold(String workerId) {
        held.add(workerId);
    }




    /** Drains every agent (a held one is stopped: its attempt is cancelled), all at once, and waits for them. */
    @Override
    public void close() {
        List<CompletableFuture<?>> ended = new ArrayList<>();
        for (CronoqWorker agent : agents.values()) {
            if (agent.state() == CronoqWorker.State.CREATED) {
                continue;
            }
            if (held.contains(agent.id())) {
                agent.stopNow("the bench phase is over");
                ended.add(agent.terminated());
            } else {
                ended.add(agent.drain());
            }
        }
        try {
            CompletableFuture.allOf(ended.toArray(CompletableFuture[]::new))
                    .get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            log.warn("Not every agent ended within {}: {}", STOP_WAIT, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            starts.shutdownNow();
            attempts.shutdownNow();
        }
    }

    private boolean failed(String id) {
        return failures.containsKey(id);
    }

    /** The handler: the attempt reached its worker now; it runs for the run time. */
    private byte[] run(TaskContext ctx) throws InterruptedException {
        arrived(ctx);
        if (runMs > 0) {
            Thread.sleep(runMs);
        }
        return null;
    }

    /** The handler of a held worker: its attempt never ends by itself. */
    private byte[] holdForever(TaskContext ctx) throws InterruptedException {
        arrived(ctx);
        ctx.cancellation().await();
        return null;
    }

    private void arrived(TaskContext ctx) {
        placed(Workload.stampOf(ByteBuffer.wrap(ctx.payload())), System.nanoTime());
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger next = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + next.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
