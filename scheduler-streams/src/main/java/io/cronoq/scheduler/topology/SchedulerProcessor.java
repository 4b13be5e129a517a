package io.cronoq.scheduler.topology;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.DependencyEvent;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.auth.RegistrationGuard;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.topology.StorePoolStore.WritableStores;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves events in and out of the placement policy: hands each decoded input to its pool's
 * {@link PoolScheduler} and routes the decisions to the journal (key: pool) and the assignments
 * topic (key: worker id). It decides nothing itself, except that a worker registration the
 * {@link RegistrationGuard} refuses is answered with {@code RegistrationRejected} and never reaches the policy. One instance serves the pools of one stream task;
 * each pool's scheduler is loaded from the stores on the pool's first event after the task starts.
 */
final class SchedulerProcessor implements Processor<String, Inbound, Object, Object> {

    private static final Logger log = LoggerFactory.getLogger(SchedulerProcessor.class);
    /** How often the loaded pools' rate limits are looked at between ticks: the finest spacing a bucket keeps. */
    static final Duration RATE_TICK = Duration.ofMillis(20);

    /** A pool's scheduler over its view of the stores, which holds an input's writes until it is done. */
    private record Loaded(PoolScheduler scheduler, StorePoolStore store) {}

    private final Map<String, Loaded> schedulers = new HashMap<>();
    /**
     * The rate tick while it runs, else {@code null}. It runs only while a loaded pool holds back a
     * task for its rate limit's units: Kafka Streams commits a stream task after every punctuation,
     * so a tick every 20 ms on every task would make idle pools commit 50 times a second.
     */
    private Cancellable rateTicks;
    /** The tick, from {@link #init} to {@link #close}. */
    private Cancellable ticks;
    private final RegistrationGuard guard;
    private final TimeRules rules;
    private final Duration tick;
    private final JournalRecords journalRecords;
    private final AssignmentRecords assignmentRecords;
    private ProcessorContext<Object, Object> context;
    /** The journal and assignments records being filled; per commit, sent when the stream task commits. */
    private Outbox outbox;
    private CommitHook commitHook;
    /** Whether Kafka Streams tells {@link #commitHook} of each commit; without it (a mock context) every input is one. */
    private boolean hooked;
    private WritableStores stores;
    private StorePoolStore.DecodedTasks decoded;

    /** The records say how many entries a journal record and how many events an assignments record holds. */
    SchedulerProcessor(RegistrationGuard guard, TimeRules rules, Duration tick, JournalRecords journalRecords,
                       AssignmentRecords assignmentRecords) {
        this.guard = guard;
        this.rules = rules;
        this.tick = tick;
        this.journalRecords = journalRecords;
        this.assignmentRecords = assignmentRecords;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        // init also runs when a task is revived after its stores were rolled back: drop what was loaded.
        schedulers.clear();
        decoded = new StorePoolStore.DecodedTasks();
        this.stores = new WritableStores(
                context.getStateStore(StoreNames.TASKS),
                context.getStateStore(StoreNames.WORKERS),
                context.getStateStore(StoreNames.POOLS),
                context.getStateStore(StoreNames.SHARING),
                context.getStateStore(StoreNames.LIMITS),
                context.getStateStore(StoreNames.DEPENDENCIES),
                IndexedTaskStore.indexOf(context.getStateStore(StoreNames.TASKS)));
        ticks = context.schedule(tick, PunctuationType.WALL_CLOCK_TIME, this::tick);
        // The records are sent when the stream task commits, in the transaction that commits the
        // inputs that caused them.
        outbox = new Outbox(journalRecords, assignmentRecords, new Outbox.Sinks() {
            @Override
            public void journal(Record<String, byte[]> record) {
                context.forward(record, SchedulerTopology.JOURNAL_SINK);
            }

            @Override
            public void assignments(Record<String, byte[]> record) {
                context.forward(record, SchedulerTopology.ASSIGNMENTS_SINK);
            }
        });
        commitHook = context.getStateStore(StoreNames.COMMIT_HOOK);
        hooked = commitHook.watch(context, outbox::commit);
    }

    /**
     * Time's decisions: every pool this stream task holds (every pool with a record in the pools
     * store) is told the wall-clock time, and what it decides is journaled and sent under that time,
     * like the decisions of an input. The policy reads no clock: this is the only one it hears.
     */
    private void tick(long now) {
        List<String> pools = new ArrayList<>();
        try (KeyValueIterator<String, PoolRecord> it = stores.pools().all()) {
            it.forEachRemaining(kv -> pools.add(kv.key));
        }
        for (String pool : pools) {
            tick(pool, load(pool), now);
        }
    }

    /**
     * Between ticks, the loaded pools whose rate limits hold back a task whose units are due are
     * told the time, so a bucket's refill starts its tasks within {@link #RATE_TICK} rather than at
     * the next tick: a rate of 10/s with a burst of 1 runs ten tasks a second, not one. Once no
     * loaded pool holds a task back for its units, the rate tick stops until one does again.
     */
    private void rateTick(long now) {
        for (Map.Entry<String, Loaded> e : new ArrayList<>(schedulers.entrySet())) {
            Instant due = e.getValue().scheduler().rateDue();
            if (due != null && due.toEpochMilli() <= now) {
                tick(e.getKey(), e.getValue(), now);
            }
        }
        boolean holding = schedulers.values().stream().anyMatch(loaded -> loaded.scheduler().rateDue() != null);
        if (!holding && rateTicks != null) {
            rateTicks.cancel();
            rateTicks = null;
        }
    }

    /**
     * Sends what the outbox gathered and cancels the punctuations. A stream task keeps them when it
     * is revived: Kafka Streams closes its processors when it suspends the task and initializes them
     * again after, so without this each revival would add a tick.
     */
    @Override
    public void close() {
        commitHook.unwatch();
        sendOutboxOnClose();
        if (ticks != null) {
            ticks.cancel();
            ticks = null;
        }
        if (rateTicks != null) {
            rateTicks.cancel();
            rateTicks = null;
        }
    }

    /**
     * Kafka Streams may close the processor before it commits the task for the last time (when it
     * suspends the task, or shuts down): the records gathered so far are sent now, with the
     * processor still current. If that fails, the task's transaction cannot commit either and is
     * aborted, so the records are dropped with it.
     */
    private void sendOutboxOnClose() {
        try {
            outbox.commit();
        } catch (RuntimeException e) {
            log.info("Records gathered before close were not sent ({}); their transaction is aborted", e.toString());
            outbox.discard();
        }
    }

    /** Starts the rate tick if the pool just handled holds back a task for its rate limit's units. */
    private void watchRate(Loaded loaded) {
        if (rateTicks == null && loaded.scheduler().rateDue() != null) {
            rateTicks = context.schedule(RATE_TICK, PunctuationType.WALL_CLOCK_TIME, this::rateTick);
        }
    }

    private void tick(String pool, Loaded loaded, long now) {
        try {
            List<Decision> decisions = loaded.scheduler().tick(Instant.ofEpochMilli(now));
            loaded.store().flush();
            route(pool, now, null, decisions); // a tick's time is the scheduler's clock: no heardAt to add
            watchRate(loaded);
        } catch (RuntimeException e) {
            if (RuntimeFaults.belongToRuntime(e)) {
                handBack(pool, e);
                throw e;
            }
            // A bug: keep running, and reload the pool from its stores on the next event or tick.
            log.error("Tick of pool {} failed; it is reloaded from its stores", pool, e);
            unload(pool);
        }
    }

    /**
     * Drops a pool's scheduler after a failure, keeping what the failed input wrote (as its line
     * entries are already in the stores), so the reloaded scheduler sees one consistent state.
     */
    private void unload(String pool) {
        Loaded loaded = schedulers.remove(pool);
        decoded.clear(); // a failed input may have changed a decoded task it did not write
        if (loaded != null) {
            try {
                loaded.store().flush();
            } catch (RuntimeException e) {
                log.error("Could not write what the failed input changed in pool {}", pool, e);
            }
        }
    }

    /**
     * Forgets a pool's scheduler without writing what the failed input changed: the transaction is
     * aborted and the stores come back as they were committed, from which the pool is loaded again.
     */
    private void handBack(String pool, RuntimeException e) {
        log.info("Processing pool {} stopped for Kafka Streams to recover ({}); the input is not dead-lettered",
                pool, e.toString());
        schedulers.remove(pool);
        decoded.clear();
        // What the outbox gathered stays: Kafka Streams sends it when it closes the task (dirty), and
        // aborts it with the transaction under exactly-once; under at-least-once the stores keep the
        // earlier inputs' writes, and so must their records be sent.
    }

    private Loaded load(String pool) {
        return schedulers.computeIfAbsent(pool, p -> {
            StorePoolStore store = new StorePoolStore(p, stores, decoded);
            return new Loaded(new PoolScheduler(p, store, rules), store);
        });
    }

    @Override
    public void process(Record<String, Inbound> record) {
        Inbound in = record.value();
        String pool = in.pool();
        Instant heardAt = heardAt();
        if (pool == null || pool.isBlank()) {
            route(record.key(), record.timestamp(), heardAt, List.of(Decision.journal(rejectedForPool(in), null)));
            return;
        }
        if (in.event() instanceof WorkerRegistered registration) {
            Optional<RegistrationRejected> refused = guard.check(registration, record.timestamp());
            if (refused.isPresent()) {
                // Refused before the policy: the worker is not registered, so it gets no task.
                route(pool, record.timestamp(), heardAt,
                        List.of(Decision.journalAndNotify(refused.get(), registration.getWorkerId(), null)));
                return;
            }
            Optional<RegistrationRejected> replay = guard.replayed(registration, () -> {
                WorkerRecord known = stores.workers().get(StoreNames.workerKey(pool, registration.getWorkerId()));
                return known == null ? null : known.getRegisteredAt();
            }, record.timestamp());
            if (replay.isPresent()) {
                // Journaled, not sent: the worker registered under this id is real and keeps running.
                route(pool, record.timestamp(), heardAt, List.of(Decision.journal(replay.get(), null)));
                return;
            }
        }
        try {
            Loaded loaded = load(pool);
            List<Decision> decisions = loaded.scheduler().apply(in.event(), heardAt);
            loaded.store().flush();
            if (in.event() instanceof WorkerRegistered registration) {
                decisions = answeringRefusals(registration, decisions, record.timestamp());
            }
            route(pool, record.timestamp(), heardAt, decisions);
            watchRate(loaded);
        } catch (RuntimeException e) {
            if (RuntimeFaults.belongToRuntime(e)) {
                // Not the input's fault (the task migrated, the producer was fenced, a store failed):
                // Kafka Streams aborts the transaction and the input is processed again where the task runs.
                handBack(pool, e);
                throw e;
            }
            // A bug, not bad input (that is rejected by the policy). Keep running: dead-letter the input
            // and reload the pool from its stores on its next event.
            log.error("Failed to process {} from {}-{}@{}; dead-lettering it", in.type(), in.topic(), in.partition(),
                    in.offset(), e);
            unload(pool);
            var letter = DeadLetters.of(in.topic(), in.partition(), in.offset(), in.rawKey(), in.rawValue(),
                    "processing failed: " + e, e, record.timestamp());
            context.forward(new Record<>(DeadLetters.key(in.topic(), in.partition(), in.offset()), letter,
                    record.timestamp()), SchedulerTopology.DEAD_LETTERS_SINK);
        }
    }

    /** Now, on the clock the ticks run on. */
    private Instant heardAt() {
        return Instant.ofEpochMilli(context.currentSystemTimeMs());
    }

    /**
     * A registration the policy rejected as invalid is also answered on the worker's own key, where it
     * waits for an answer: told why, it stops instead of waiting.
     */
    private static List<Decision> answeringRefusals(WorkerRegistered registration, List<Decision> decisions,
                                                    long timestamp) {
        List<Decision> answered = new ArrayList<>(decisions.size() + 1);
        for (Decision decision : decisions) {
            answered.add(decision);
            if (decision.event() instanceof InputRejected rejected) {
                answered.add(Decision.notify(invalidRegistration(registration, rejected, timestamp),
                        registration.getWorkerId()));
            }
        }
        return answered;
    }

    /**
     * Sends what one input (or one tick) decided: each dependency event to its pool's key, and every
     * notice to a worker and every journaled entry to the {@link Outbox}, which gathers them into the
     * worker's and the pool's records. Each entry is stamped with the input's
     * {@code timestamp}, and says when the scheduler heard the input ({@code heardAt}, what it passed
     * to the policy) where that differs, so a replay decides on the clock this scheduler decided on.
     */
    private void route(String pool, long timestamp, Instant heardAt, List<Decision> decisions) {
        Instant at = Instant.ofEpochMilli(timestamp);
        Instant heard = heardAt == null || heardAt.toEpochMilli() == timestamp ? null : heardAt;
        for (Decision decision : decisions) {
            if (decision.journal()) {
                outbox.journal(pool, at, heard, decision.event(), decision.cause());
            }
            if (decision.worker() != null) {
                outbox.tell(decision.worker(), decision.event(), timestamp);
            }
            if (decision.pool() != null) {
                context.forward(new Record<>(decision.pool(), new DependencyEvent(decision.event()), timestamp),
                        SchedulerTopology.DEPENDENCIES_SINK);
            }
        }
        outbox.endInput();
        if (!hooked) {
            outbox.commit();
        } else if (outbox.heldBytes() > Outbox.COMMIT_AT_BYTES) {
            context.commit(); // bounds what waits on the heap for the commit
        }
    }

    private static RegistrationRejected invalidRegistration(WorkerRegistered registration, InputRejected rejected,
                                                            long timestamp) {
        String field = rejected.getField() == null ? "" : rejected.getField() + ": ";
        return new RegistrationRejected(registration.getWorkerId(), registration.getPool(), rejected.getCode(),
                field + rejected.getReason(), Instant.ofEpochMilli(timestamp));
    }

    private static InputRejected rejectedForPool(Inbound in) {
        return InputRejected.newBuilder()
                .setInputType(in.type())
                .setCode(RejectionCode.INVALID_ARGUMENT)
                .setField("pool")
                .setReason("pool is empty; every event must name its pool")
                .build();
    }
}
