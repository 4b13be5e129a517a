package io.cronoq.bench;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many simulated workers in one process: one {@code read_committed} reader of every assignments
 * partition answers each {@code AttemptAssigned} with {@code AttemptSucceeded} at once or after a
 * fixed run time, and with {@code AttemptStarted} as an agent sends it (see {@link ReportPlan}): at
 * once, or held back for a delay and left out when the attempt ends within it. It measures
 * submission→assignment latency from the stamp in the task's payload, counts placements, and can kill
 * a worker (it stops answering; its attempts are abandoned) and restart it under the same id (it
 * registers again).
 */
public final class SimulatedWorkers extends Fleet {

    private static final Logger log = LoggerFactory.getLogger(SimulatedWorkers.class);

    private final Topics topics;
    private final ReportPlan plan;
    private final Clock clock;
    private final KafkaProducer<String, byte[]> producer;
    private final Map<String, WorkerRegistered> registrations = new ConcurrentHashMap<>();
    private final Map<String, Long> generations = new ConcurrentHashMap<>();
    private final Map<String, Long> floors = new ConcurrentHashMap<>();
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private final Set<String> dead = new HashSet<>();
    private final PriorityQueue<Pending> pending = new PriorityQueue<>();
    private final AtomicLong sendFailures = new AtomicLong();
    private volatile Consumer<AttemptAssigned> listener = a -> { };
    private final TopicTail tail;
    /** Heartbeats of every live simulated worker, as an agent sends them, so the scheduler does not evict them. */
    private final java.util.concurrent.ScheduledExecutorService heartbeats =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "simulated-worker-heartbeats");
                t.setDaemon(true);
                return t;
            });

    private SimulatedWorkers(String bootstrap, Topics topics, long runMs, long startReportDelayMs, Clock clock) {
        this.topics = topics;
        this.plan = ReportPlan.of(TimeUnit.MILLISECONDS.toNanos(runMs),
                TimeUnit.MILLISECONDS.toNanos(startReportDelayMs));
        this.clock = clock;
        Map<String, Object> config = KafkaClients.durableProducer(KafkaClients.bootstrap(bootstrap),
                KafkaClients.uniqueId("cronoq-bench-workers"));
        // A worker's answer goes out within a millisecond rather than the load generators' five.
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        BenchClients.oneInFlight(config);
        this.producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
        this.tail = TopicTail.start(bootstrap, topics.assignments().name(), new Answer());
        heartbeats.scheduleAtFixedRate(this::heartbeat, HEARTBEAT_MS, HEARTBEAT_MS, TimeUnit.MILLISECONDS);
    }

    /** How often each live worker heartbeats (an agent's default). */
    private static final long HEARTBEAT_MS = 3_000;

    private void heartbeat() {
        try {
            for (WorkerRegistered w : registrations.values()) {
                long generation = generation(w.getWorkerId());
                boolean alive;
                synchronized (this) {
                    alive = !dead.contains(w.getWorkerId());
                }
                if (alive && generation > 0) {
                    var beat = io.cronoq.events.WorkerHeartbeat.newBuilder().setWorkerId(w.getWorkerId())
                            .setPool(w.getPool()).setGeneration(generation).setRunning(java.util.List.of())
                            .setSentAt(clock.instant()).build();
                    send(topics.workers().name(), w.getPool(), topics.workers().valueSerde().serializer()
                            .serialize(topics.workers().name(), new WorkerEvent(beat)));
                }
            }
        } catch (RuntimeException e) {
            log.warn("Heartbeats of the simulated workers failed; the next round follows", e);
        }
    }

    /**
     * Starts reading the assignments of {@code topics}; workers answer once registered with
     * {@link #register}, each attempt with {@code AttemptStarted} at once and its success when it ends.
     *
     * @param runMs how long each attempt runs before it succeeds (0: at once)
     */
    public static SimulatedWorkers start(String bootstrap, Topics topics, long runMs) {
        return start(bootstrap, topics, runMs, 0);
    }

    /**
     * Starts reading the assignments of {@code topics}; workers answer once registered with
     * {@link #register}.
     *
     * @param runMs              how long each attempt runs before it succeeds (0: at once)
     * @param startReportDelayMs how long {@code AttemptStarted} is held back; an attempt that ends within it is
     *                           reported by its success alone (0: the start is reported at once)
     */
    public static SimulatedWorkers start(String bootstrap, Topics topics, long runMs, long startReportDelayMs) {
        if (runMs < 0 || startReportDelayMs < 0) {
            throw new IllegalArgumentException("run time " + runMs + " ms and start-report delay " + startReportDelayMs
                    + " ms must be 0 or more");
        }
        return new SimulatedWorkers(bootstrap, topics, runMs, startReportDelayMs, Clock.systemUTC());
    }

    /** Sends the registrations (key: pool) and waits until the producer has them acknowledged. */
    @Override
    public void register(Collection<WorkerRegistered> workers) {
        for (WorkerRegistered w : workers) {
            registrations.put(w.getWorkerId(), w);
            send(topics.workers().name(), w.getPool(),
                    topics.workers().valueSerde().serializer().serialize(topics.workers().name(), new WorkerEvent(w)));
        }
        producer.flush();
    }

    /** Whether every one of these workers has been accepted (its {@code RegistrationAccepted} arrived). */
    @Override
    public boolean accepted(Collection<String> workerIds) {
        return workerIds.stream().allMatch(id -> generation(id) > 0 && generation(id) >= floors.getOrDefault(id, 0L));
    }

    /** The generation the scheduler last gave this worker, or 0 before it was accepted. */
    public long generation(String workerId) {
        return generations.getOrDefault(workerId, 0L);
    }

    /** This worker takes its assignments and never answers them (it keeps its group saturated). */
    @Override
    public void hold(String workerId) {
        held.add(workerId);
    }

    /** Kills a worker: it stops answering, and the attempts it was running are abandoned. */
    public synchronized void kill(String workerId) {
        dead.add(workerId);
        pending.removeIf(p -> p.workerId.equals(workerId));
    }

    /** Restarts a killed worker under the same id: it registers again and answers what it gets from then on. */
    public void restart(String workerId) {
        WorkerRegistered previous = registrations.get(workerId);
        if (previous == null) {
            throw new IllegalArgumentException("worker " + workerId + " never registered");
        }
        synchronized (this) {
            // Whatever was assigned to the killed generation is not this worker's any more.
            floors.put(workerId, generation(workerId) + 1);
            dead.remove(workerId);
        }
        register(java.util.List.of(WorkerRegistered.newBuilder(previous).setRegisteredAt(clock.instant()).build()));
    }

    /** Attempts this worker has started and not yet reported done. */
    public synchronized int running(String workerId) {
        return (int) pending.stream().filter(p -> p.workerId.equals(workerId) && p.startedAt == null).count();
    }

    /** Called with every assignment a live worker accepts (e.g. to record them); on the reader's thread. */
    public void onAssigned(Consumer<AttemptAssigned> listener) {
        this.listener = listener;
    }




    /** Completions the producer could not send (should stay 0). */
    public long sendFailures() {
        return sendFailures.get();
    }

    /** Stops answering and heartbeating, and closes the reader and the producer. */
    @Override
    public void close() {
        heartbeats.shutdownNow();
        try {
            tail.close();
        } finally {
            producer.close(Duration.ofSeconds(10));
        }
    }

    private void send(String topic, String key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key, value), (meta, error) -> {
            if (error != null && sendFailures.getAndIncrement() == 0) {
                log.warn("Could not send to {}: {}", topic, error.toString());
            }
        });
    }

    private void complete(String topic, AttemptAssigned a, Object event) {
        send(topic, a.getPool(), topics.completions().valueSerde().serializer().serialize(topic, new CompletionEvent(event)));
    }

    /** The reader's handler: answers assignments and sends completions as they fall due. */
    private final class Answer implements TopicTail.Handler {
        private final String assignments = topics.assignments().name();
        private final String completions = topics.completions().name();

        @Override
        public void onRecord(ConsumerRecord<byte[], byte[]> record, long receivedNanos) {
            AssignmentEvent envelope = topics.assignments().valueSerde().deserializer().deserialize(assignments, record.value());
            for (Object event : Assignments.events(envelope)) {
                if (event instanceof RegistrationAccepted r) {
                    generations.put(r.getWorkerId(), r.getGeneration());
                } else if (event instanceof AttemptAssigned a) {
                    onAssigned(a, record, receivedNanos);
                }
                // WorkerFenced and AttemptRevoked need no answer from a simulated worker.
            }
        }

        private void onAssigned(AttemptAssigned a, ConsumerRecord<byte[], byte[]> record, long receivedNanos) {
            String worker = a.getWorkerId();
            synchronized (SimulatedWorkers.this) {
                if (dead.contains(worker) || a.getGeneration() < Math.max(generation(worker), floors.getOrDefault(worker, 0L))) {
                    return;
                }
            }
            placed(a.getTaskId(), Workload.stampOf(a.getPayload()),
                    record.timestampType() == TimestampType.LOG_APPEND_TIME ? record.timestamp() : -1, receivedNanos);
            listener.accept(a);
            if (held.contains(worker)) {
                return;
            }
            Instant startedAt = clock.instant();
            if (plan.startedAfterNanos() == 0) {
                complete(completions, a, started(a, startedAt));
            }
            if (plan.succeededAfterNanos() == 0) {
                complete(completions, a, succeeded(a));
                return;
            }
            synchronized (SimulatedWorkers.this) {
                if (plan.startedAfterNanos() > 0) {
                    pending.add(new Pending(receivedNanos + plan.startedAfterNanos(), worker, a, startedAt));
                }
                pending.add(new Pending(receivedNanos + plan.succeededAfterNanos(), worker, a, null));
            }
        }

        @Override
        public void afterPoll(long nowNanos) {
            synchronized (SimulatedWorkers.this) {
                while (!pending.isEmpty() && pending.peek().dueNanos <= nowNanos) {
                    Pending due = pending.poll();
                    complete(completions, due.attempt,
                            due.startedAt == null ? succeeded(due.attempt) : started(due.attempt, due.startedAt));
                }
            }
        }

        @Override
        public long pollMillis() {
            synchronized (SimulatedWorkers.this) {
                if (pending.isEmpty()) {
                    return 50;
                }
                long waitMs = TimeUnit.NANOSECONDS.toMillis(pending.peek().dueNanos - System.nanoTime());
                return Math.max(1, Math.min(50, waitMs));
            }
        }

        private AttemptStarted started(AttemptAssigned a, Instant at) {
            return AttemptStarted.newBuilder().setTaskId(a.getTaskId()).setPool(a.getPool())
                    .setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                    .setAt(at).build();
        }

        private AttemptSucceeded succeeded(AttemptAssigned a) {
            return AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(a.getPool())
                    .setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                    .setAt(clock.instant()).build();
        }
    }

    /**
     * A report to send when it falls due: the held-back {@code AttemptStarted} of an attempt that started at
     * {@code startedAt}, or (with {@code startedAt} null) its success when its run time is up.
     */
    private record Pending(long dueNanos, String workerId, AttemptAssigned attempt, Instant startedAt)
            implements Comparable<Pending> {
        @Override
        public int compareTo(Pending other) {
            return Long.compare(dueNanos, other.dueNanos);
        }
    }
}
