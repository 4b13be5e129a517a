package io.cronoq.client;

import io.cronoq.schemas.KeyPartitions;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.events.JournalKind;
import io.cronoq.schemas.rules.InvalidInputException;
import io.cronoq.schemas.rules.Violation;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the journal for a client's awaited outcomes: one consumer on one thread, shared by every
 * awaiting future. It reads only the partitions of the awaited pools (the journal is keyed by pool,
 * so a pool's partition is murmur2 of its name, as Kafka's default partitioner placed it), {@code
 * read_committed}, from a time at or before the awaited task was sent. It remembers the latest
 * outcomes, so a task that ended before its outcome was asked for is answered without rereading;
 * only when that memory has overflowed past the time asked for does it reread the partition from
 * there. Futures are completed on the client's callback executor, never on the reading thread.
 */
final class JournalFollower implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JournalFollower.class);
    private static final long POLL_MS = 50;
    private static final long HOUSEKEEPING_MS = 1000;
    /** Results of successes not yet followed by their TaskFinished (normally the next record). */
    private static final int MAX_PENDING_RESULTS = 10_000;

    private final Map<String, Object> consumerConfig;
    private final Topic<String, JournalEntry> journal;
    private final Executor callbacks;
    private final RecentOutcomes recent;
    private final String threadName;
    private final LinkedBlockingQueue<Request> requests = new LinkedBlockingQueue<>();
    private final Object lifecycle = new Object();
    private Thread thread;
    private volatile boolean closed;

    // Owned by the follower thread.
    private KafkaConsumer<String, JournalEntry> consumer;
    private int partitions = -1;
    private final Map<Integer, Coverage> coverage = new HashMap<>();
    private final Map<String, List<Request>> waiters = new HashMap<>();
    private final List<Request> withoutTopic = new ArrayList<>();
    private final Map<String, byte[]> results = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
            return size() > MAX_PENDING_RESULTS;
        }
    };
    private long lastHousekeeping;

    JournalFollower(Map<String, Object> consumerConfig, Topic<String, JournalEntry> journal, Executor callbacks,
                    int recentCapacity, long recentResultBytes, String threadName) {
        this.consumerConfig = Map.copyOf(consumerConfig);
        this.journal = journal;
        this.callbacks = callbacks;
        this.recent = new RecentOutcomes(recentCapacity, recentResultBytes);
        this.threadName = threadName;
    }

    /** A future of the task's outcome; {@code sinceMillis} is a time at or before the submission was sent. */
    CompletableFuture<TaskOutcome> await(String taskId, String pool, long sinceMillis) {
        CompletableFuture<TaskOutcome> promise = new CompletableFuture<>();
        synchronized (lifecycle) {
            if (closed) {
                promise.completeExceptionally(new IllegalStateException("the cronoq client is closed"));
                return promise;
            }
            if (thread == null) {
                thread = new Thread(this::run, threadName);
                thread.setDaemon(true);
                thread.start();
            }
            requests.add(new Request(taskId, pool, sinceMillis, promise));
        }
        return promise;
    }

    @Override
    public void close() {
        Thread running;
        synchronized (lifecycle) {
            closed = true;
            running = thread;
        }
        if (running == null) {
            return;
        }
        try {
            running.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ==== the follower thread ======================================================================

    private void run() {
        try (KafkaConsumer<String, JournalEntry> c = new KafkaConsumer<>(consumerConfig,
                journal.keySerde().deserializer(), journal.valueSerde().deserializer())) {
            consumer = c;
            while (!closed) {
                try {
                    step();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (RuntimeException e) {
                    if (closed) {
                        break;
                    }
                    log.error("Following the journal {} failed; failing the {} awaited outcomes and starting over",
                            journal.name(), waiters.size() + withoutTopic.size(), e);
                    failAll(e);
                    reset();
                }
            }
        } catch (RuntimeException e) {
            log.error("Could not create the journal consumer for {}", journal.name(), e);
            failAll(e);
        } finally {
            failAll(new IllegalStateException("the cronoq client is closed"));
        }
    }

    private void step() throws InterruptedException {
        boolean reading = !consumer.assignment().isEmpty();
        Request next = reading ? requests.poll() : requests.poll(POLL_MS, TimeUnit.MILLISECONDS);
        while (next != null) {
            handle(next);
            next = requests.poll();
        }
        long now = System.currentTimeMillis();
        if (now - lastHousekeeping >= HOUSEKEEPING_MS) {
            lastHousekeeping = now;
            housekeeping();
        }
        if (consumer.assignment().isEmpty()) {
            return;
        }
        try {
            for (ConsumerRecord<String, JournalEntry> record : consumer.poll(Duration.ofMillis(POLL_MS))) {
                process(record);
            }
        } catch (RecordDeserializationException e) {
            // Not ours to judge: the scheduler wrote it. Skip it so one bad record blocks no outcome.
            log.warn("Skipping an unreadable journal record at {}@{}: {}", e.topicPartition(), e.offset(),
                    e.getMessage());
            consumer.seek(e.topicPartition(), e.offset() + 1);
        }
    }

    private void handle(Request r) {
        if (r.promise.isDone()) {
            return;
        }
        if (partitions < 0) {
            List<PartitionInfo> infos = consumer.partitionsFor(journal.name());
            if (infos == null || infos.isEmpty()) {
                if (withoutTopic.isEmpty()) {
                    log.info("The journal topic {} does not exist yet; outcomes wait for the scheduler to create it",
                            journal.name());
                }
                withoutTopic.add(r);
                return;
            }
            partitions = infos.size();
        }
        String key = key(r.pool, r.taskId);
        Finished known = recent.get(key);
        if (known != null) {
            complete(r, known);
            return;
        }
        int p = KeyPartitions.of(r.pool, partitions);
        TopicPartition tp = new TopicPartition(journal.name(), p);
        Coverage covered = coverage.get(p);
        if (covered == null) {
            long offset = offsetAt(tp, r.sinceMillis);
            Set<TopicPartition> assignment = new HashSet<>(consumer.assignment());
            assignment.add(tp);
            consumer.assign(assignment);
            consumer.seek(tp, offset);
            coverage.put(p, new Coverage(r.sinceMillis, offset));
            log.debug("Following {} from offset {} (for task {})", tp, offset, r.taskId);
        } else if (!covered.covers(r.sinceMillis)) {
            long offset = offsetAt(tp, r.sinceMillis);
            if (offset < covered.floor) {
                log.info("Rereading {} from offset {} for task {}: its outcome may be older than the {} remembered",
                        tp, offset, r.taskId, recent.capacity);
                consumer.seek(tp, offset);
                covered.rewind(r.sinceMillis, offset);
            }
        }
        waiters.computeIfAbsent(key, k -> new ArrayList<>(1)).add(r);
    }

    private long offsetAt(TopicPartition tp, long sinceMillis) {
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(tp, Math.max(0, sinceMillis)));
        OffsetAndTimestamp at = found.get(tp);
        // Nothing at or after that time yet: everything from now on is.
        return at != null ? at.offset() : consumer.endOffsets(List.of(tp)).get(tp);
    }

    private void process(ConsumerRecord<String, JournalEntry> record) {
        if (record.value() == null) {
            return;
        }
        for (JournalEntry entry : Journal.entries(record.value())) {
            process(record, entry);
        }
    }

    private void process(ConsumerRecord<String, JournalEntry> record, JournalEntry entry) {
        String pool = entry.getPool();
        Object event = entry.getEvent();
        Finished finished = switch (JournalKind.of(event)) {
            case ATTEMPT_SUCCEEDED -> succeeded(pool, (AttemptSucceeded) event);
            case TASK_FINISHED -> finished(entry, (TaskFinished) event);
            case TASK_CANCELLED -> new Finished(new TaskOutcome(Journal.taskId(event), pool, TaskState.CANCELLED, 0,
                    null, ((TaskCancelled) event).getReason(), null, entry.getAt()), null);
            case INPUT_REJECTED -> rejected((InputRejected) event);
            // Neither ends a task nor carries its result.
            case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, WORKER_REGISTERED, WORKER_DRAINING, WORKER_LEFT, ATTEMPT_STARTED,
                    ATTEMPT_FAILED, TASK_WAITING, ATTEMPT_ASSIGNED, DUPLICATE_SUBMISSION, WORKER_ACCEPTED,
                    WORKER_REMOVED, ATTEMPT_REVOKED, WORKER_FENCED, REGISTRATION_REJECTED, TASK_FORGOTTEN,
                    SHARING_POLICY_SET, LIMIT_SET, GANG_SUBMITTED, PARENT_WATCHED, PARENT_ENDED, TASK_BLOCKED -> null;
        };
        if (finished != null) {
            finished(record, pool, Journal.taskId(event), finished);
        }
    }

    /** Keeps a success's result for the {@code TaskFinished} that follows it; ends nothing itself. */
    private Finished succeeded(String pool, AttemptSucceeded s) {
        if (s.getResult() != null) {
            results.put(key(pool, Journal.attemptKey(s.getTaskId(), s.getAttempt())), bytes(s.getResult()));
        }
        return null;
    }

    /** A final state ends the task; any other (WAITING) is a failed attempt that will be retried: keep waiting. */
    private Finished finished(JournalEntry entry, TaskFinished f) {
        String pool = entry.getPool();
        byte[] result = results.remove(key(pool, Journal.attemptKey(f.getTaskId(), f.getAttempt())));
        if (f.getState() == TaskState.SUCCEEDED || f.getState() == TaskState.FAILED
                || f.getState() == TaskState.CANCELLED) {
            return new Finished(new TaskOutcome(f.getTaskId(), pool, f.getState(), f.getAttempt(), f.getWorkerId(),
                    f.getError(), result, entry.getAt()), null);
        }
        return null;
    }

    /** A submission the scheduler refused ends its task with the refusal; another input's refusal ends none. */
    private static Finished rejected(InputRejected r) {
        if (!"TaskSubmitted".equals(r.getInputType()) || r.getTaskId() == null) {
            return null;
        }
        String field = r.getField() == null ? "task" : r.getField();
        return new Finished(null, new Violation(field, r.getReason()));
    }

    private void finished(ConsumerRecord<?, ?> record, String pool, String taskId, Finished finished) {
        String key = key(pool, taskId);
        recent.put(key, finished, record.partition(), record.offset(), (partition, offset) -> {
            Coverage c = coverage.get(partition);
            if (c != null) {
                c.forgot(offset);
            }
        });
        List<Request> waiting = waiters.remove(key);
        if (waiting != null) {
            waiting.forEach(r -> complete(r, finished));
        }
    }

    private void complete(Request r, Finished finished) {
        callbacks.execute(() -> {
            if (finished.outcome != null) {
                r.promise.complete(finished.outcome);
            } else {
                r.promise.completeExceptionally(new InvalidInputException(finished.rejection));
            }
        });
    }

    /** Drops the waiters whose caller gave up, and retries those that came before the journal topic. */
    private void housekeeping() {
        waiters.values().removeIf(list -> {
            list.removeIf(r -> r.promise.isDone());
            return list.isEmpty();
        });
        if (!withoutTopic.isEmpty()) {
            List<Request> retry = new ArrayList<>(withoutTopic);
            withoutTopic.clear();
            retry.forEach(this::handle);
        }
    }

    private void failAll(Throwable error) {
        List<Request> all = new ArrayList<>(withoutTopic);
        waiters.values().forEach(all::addAll);
        requests.drainTo(all);
        waiters.clear();
        withoutTopic.clear();
        for (Request r : all) {
            try {
                callbacks.execute(() -> r.promise.completeExceptionally(error));
            } catch (RuntimeException rejected) {
                r.promise.completeExceptionally(error);
            }
        }
    }

    private void reset() {
        consumer.unsubscribe();
        coverage.clear();
        recent.clear();
        results.clear();
        partitions = -1;
    }

    private static String key(String pool, String taskId) {
        return pool + '\u0000' + taskId;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    // ==== bookkeeping ==============================================================================

    /** One awaited outcome. */
    private record Request(String taskId, String pool, long sinceMillis, CompletableFuture<TaskOutcome> promise) {}

    /** How a task ended: an outcome, or the scheduler's refusal of its submission. */
    private record Finished(TaskOutcome outcome, Violation rejection) {
        long resultBytes() {
            return outcome == null ? 0 : outcome.resultLength();
        }
    }

    /**
     * What is known about one followed partition. Every outcome journaled at an offset from {@code
     * floor} on is either remembered or still to be read, so a task sent at or after {@code
     * startMillis} needs no reread while nothing of this partition has been forgotten.
     */
    private static final class Coverage {
        long startMillis;
        long startOffset;
        long floor;

        Coverage(long startMillis, long startOffset) {
            rewind(startMillis, startOffset);
        }

        boolean covers(long sinceMillis) {
            return sinceMillis >= startMillis && floor == startOffset;
        }

        void rewind(long millis, long offset) {
            startMillis = millis;
            startOffset = offset;
            floor = offset;
        }

        void forgot(long offset) {
            floor = Math.max(floor, offset + 1);
        }
    }

    /** The latest outcomes, oldest forgotten first, bounded by count and by the bytes of their results. */
    private static final class RecentOutcomes {
        private final int capacity;
        private final long maxResultBytes;
        private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();
        private long resultBytes;

        RecentOutcomes(int capacity, long maxResultBytes) {
            this.capacity = capacity;
            this.maxResultBytes = maxResultBytes;
        }

        Finished get(String key) {
            Entry e = entries.get(key);
            return e == null ? null : e.finished;
        }

        void put(String key, Finished finished, int partition, long offset, Forgetting onForget) {
            Entry previous = entries.put(key, new Entry(finished, partition, offset));
            if (previous != null) {
                resultBytes -= previous.finished.resultBytes();
            }
            resultBytes += finished.resultBytes();
            Iterator<Entry> oldest = entries.values().iterator();
            while ((entries.size() > capacity || resultBytes > maxResultBytes) && oldest.hasNext()) {
                Entry e = oldest.next();
                oldest.remove();
                resultBytes -= e.finished.resultBytes();
                onForget.forgot(e.partition, e.offset);
            }
        }

        void clear() {
            entries.clear();
            resultBytes = 0;
        }

        private record Entry(Finished finished, int partition, long offset) {}

        @FunctionalInterface
        interface Forgetting {
            void forgot(int partition, long offset);
        }
    }
}
