package io.cronoq.agent;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.schemas.KeyPartitions;
import io.cronoq.schemas.events.Assignments;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reading loop of a process's workers, on one consumer: each worker that joins reads the assignments partition
 * its id hashes to (assigned manually, no group rebalancing), from the offset it committed last (or the end, for a
 * worker never seen), and is handed every record keyed by its id, in order; what each worker handled is committed
 * in its own consumer group. The consumer reads keys and values as bytes: a record's key is compared, as UTF-8
 * bytes, with the ids of the workers reading, and only a record of one of them is decoded, so the records of the
 * other workers sharing the partition cost a map lookup each. The loop survives broker outages and bad records:
 * Kafka's client reconnects, a record of a worker here that does not decode is logged with its coordinates and
 * skipped. Joining and leaving are thread-safe; everything else happens on the reading thread.
 */
final class AssignmentReader implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(AssignmentReader.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration RETRY = Duration.ofMillis(500);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    /**
     * How often a worker's progress is committed while it reads, at most: a commit is an admin request,
     * and every record of a partition moves the progress of every worker reading it. Leaving and
     * stopping commit at once; a crash re-reads at most this much, which the fencing makes harmless.
     */
    private static final long COMMIT_INTERVAL_NANOS = Duration.ofSeconds(1).toNanos();

    private final org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer;
    private final Deserializer<AssignmentEvent> values;
    private final CommittedOffsets offsets;
    private final String topic;
    private final String name;
    private final Queue<Runnable> requests = new ConcurrentLinkedQueue<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    /**
     * Reading thread only: the workers that read, by the UTF-8 bytes of their id (the records' key as written), and
     * those still waiting for their position.
     */
    private final Map<ByteBuffer, Member> members = new HashMap<>();
    private final List<Member> joining = new ArrayList<>();
    private final Set<TopicPartition> assigned = new HashSet<>();

    /**
     * @param consumer reads keys and values as bytes
     * @param values   decodes the value of a record of a worker here
     * @param offsets  where each worker's committed offset is read and written (its group {@code cronoq-worker-<id>})
     * @param name     whose reader this is (a worker id, an application's name), for the logs
     */
    AssignmentReader(org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer,
                     Deserializer<AssignmentEvent> values, CommittedOffsets offsets, String topic, String name) {
        this.consumer = consumer;
        this.values = values;
        this.offsets = offsets;
        this.topic = topic;
        this.name = name;
    }

    /**
     * Starts reading for a worker: the events of its records go to {@code handler} one by one (each as a record of
     * one), in partition order.
     *
     * @param onReady called once the worker's reading position is fixed, before its first record: registering only
     *                then guarantees that the answer to the registration is read
     */
    void join(String workerId, Consumer<AssignmentEvent> handler, Runnable onReady) {
        requests.add(() -> joining.add(new Member(workerId, handler, onReady)));
    }

    /**
     * Stops reading for a worker and commits, synchronously, the offset after the last record it handled, so a
     * restart resumes after it. Waits at most {@code timeout}.
     */
    void leave(String workerId, Duration timeout) {
        CountDownLatch left = new CountDownLatch(1);
        requests.add(() -> {
            joining.removeIf(m -> m.workerId.equals(workerId));
            Member member = members.remove(keyOf(workerId));
            if (member != null) {
                commitHandled(member);
                if (members.values().stream().noneMatch(m -> m.partition.equals(member.partition))) {
                    assigned.remove(member.partition);
                    consumer.assign(assigned);
                }
            }
            left.countDown();
        });
        if (running && !await(left, timeout)) {
            log.warn("The assignments reader of worker {} did not stop within {}", workerId, timeout);
        }
    }

    @Override
    public void run() {
        try {
            while (running) {
                for (Runnable request = requests.poll(); request != null; request = requests.poll()) {
                    request.run();
                }
                position();
                if (assigned.isEmpty()) {
                    pause(joining.isEmpty() ? POLL : RETRY);
                } else {
                    pollOnce();
                    commitHandledAsync();
                }
            }
        } catch (WakeupException e) {
            if (running) {
                log.error("The assignments reader of {} was woken up unexpectedly", name, e);
            }
        } catch (RuntimeException e) {
            log.error("The assignments reader of {} stopped", name, e);
        } finally {
            members.values().forEach(this::commitHandled);
            try {
                consumer.close(CloseOptions.timeout(REQUEST_TIMEOUT));
            } catch (RuntimeException e) {
                log.warn("Closing the assignments consumer of {} failed", name, e);
            }
            values.close();
            stopped.countDown();
        }
    }

    /** Fixes the reading position of the workers that joined, once their partition can be read. */
    private void position() {
        for (Member member : new ArrayList<>(joining)) {
            TopicPartition partition = partitionOf(member);
            Long start = partition == null ? null : startOf(member, partition);
            if (start == null) {
                continue;
            }
            if (assigned.add(partition)) {
                consumer.assign(assigned);
                consumer.seek(partition, start);
            } else if (start < consumer.position(partition)) {
                consumer.seek(partition, start); // the other workers of this partition skip what they handled
            }
            member.partition = partition;
            member.next = start;
            joining.remove(member);
            members.put(member.key, member);
            log.info("Worker {} reads {} from offset {}", member.workerId, partition, start);
            member.onReady.run();
        }
    }

    private TopicPartition partitionOf(Member member) {
        try {
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, REQUEST_TIMEOUT);
            if (partitions != null && !partitions.isEmpty()) {
                return new TopicPartition(topic, KeyPartitions.of(member.workerId, partitions.size()));
            }
            member.warnOnce("Worker {} waits for the topic {} (is the scheduler set up?)", topic);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            member.warnOnce("Worker {} cannot read the partitions of {} yet: {}", topic, e.toString());
        }
        return null;
    }

    /** The worker's committed offset on its partition, or the end for a worker never seen; null when unknown yet. */
    private Long startOf(Member member, TopicPartition partition) {
        try {
            Long committed = offsets.committed(member.workerId, partition, REQUEST_TIMEOUT);
            if (committed != null) {
                member.committed = committed;
                return committed;
            }
            // A worker never seen before starts at the end: nothing before its first registration is for it.
            return consumer.endOffsets(List.of(partition), REQUEST_TIMEOUT).get(partition);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } catch (WakeupException e) {
            throw e;
        } catch (Exception e) {
            member.warnOnce("Worker {} cannot read its position on {} yet: {}", partition.toString(), e.toString());
        }
        return null;
    }

    private void pollOnce() {
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(POLL);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("Polling {} for {} failed: {}; retrying", assigned, name, e.toString());
            pause(RETRY);
            return;
        }
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> batch = records.records(partition);
            for (ConsumerRecord<byte[], byte[]> record : batch) {
                Member member = record.key() == null ? null : members.get(ByteBuffer.wrap(record.key()));
                if (member != null && member.partition.equals(partition) && record.offset() >= member.next
                        && record.value() != null) {
                    AssignmentEvent event = decoded(record);
                    if (event != null) {
                        member.handle(event, record);
                    }
                }
            }
            long after = batch.get(batch.size() - 1).offset() + 1;
            for (Member member : members.values()) {
                if (member.partition.equals(partition) && after > member.next) {
                    member.next = after;
                    member.handledUpTo = after;
                }
            }
        }
    }

    /** The record's value, or {@code null} (logged with its coordinates) when it does not decode. */
    private AssignmentEvent decoded(ConsumerRecord<byte[], byte[]> record) {
        try {
            return values.deserialize(record.topic(), record.headers(), record.value());
        } catch (RuntimeException e) {
            log.error("Skipping a record of {}-{} at offset {} that does not decode", record.topic(),
                    record.partition(), record.offset(), e);
            return null;
        }
    }

    /** A worker id as the records' keys carry it: its UTF-8 bytes (Kafka's StringSerializer). */
    private static ByteBuffer keyOf(String workerId) {
        return ByteBuffer.wrap(workerId.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
    }

    /**
     * Commits what each worker handled since its last commit: one commit of a worker in flight at a
     * time, and at most one a {@link #COMMIT_INTERVAL_NANOS}.
     */
    private void commitHandledAsync() {
        long now = System.nanoTime();
        for (Member member : members.values()) {
            long offset = member.handledUpTo;
            if (offset > member.committed && (member.commit == null || member.commit.isDone())
                    && now - member.commitStartedNanos >= COMMIT_INTERVAL_NANOS) {
                member.commitStartedNanos = now;
                member.commit = commit(member, offset).whenComplete((ok, error) -> {
                    if (error == null) {
                        member.committed = Math.max(member.committed, offset);
                    } else {
                        log.debug("Committing offset {} of {} failed ({}); a later commit covers it", offset,
                                member.partition, error.toString());
                    }
                });
            }
        }
    }

    private void commitHandled(Member member) {
        long offset = member.handledUpTo;
        if (offset < 0 || offset <= member.committed) {
            return;
        }
        try {
            if (member.commit != null) {
                member.commit.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            commit(member, offset).get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            member.committed = offset;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Committing offset {} of {} for worker {} failed: {}; a restart re-reads from the last "
                    + "committed offset and skips what belongs to earlier generations", offset, member.partition,
                    member.workerId, e.toString());
        }
    }

    private CompletableFuture<Void> commit(Member member, long offset) {
        return offsets.commit(member.workerId, member.partition, offset);
    }

    /** Stops the loop and waits (at most {@code timeout}) until the consumer has committed and closed. */
    void stop(Duration timeout) {
        running = false;
        consumer.wakeup();
        if (!await(stopped, timeout)) {
            log.warn("The assignments reader of {} did not stop within {}", name, timeout);
        }
    }

    private static boolean await(CountDownLatch latch, Duration timeout) {
        try {
            return latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void pause(Duration duration) {
        try {
            TimeUnit.MILLISECONDS.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** One worker reading: where it reads, what it has seen and handled, and what it has committed. */
    private static final class Member {
        final String workerId;
        final ByteBuffer key;
        final Consumer<AssignmentEvent> handler;
        final Runnable onReady;
        TopicPartition partition;
        /** The first offset of its partition it has not seen. */
        long next;
        /** The offset after the last batch of its partition it was handed; -1 before the first. */
        long handledUpTo = -1;
        volatile long committed = -1;
        CompletableFuture<Void> commit;
        /** When its last asynchronous commit was sent (System.nanoTime), for the commit interval. */
        long commitStartedNanos = System.nanoTime() - COMMIT_INTERVAL_NANOS;
        private boolean warned;

        Member(String workerId, Consumer<AssignmentEvent> handler, Runnable onReady) {
            this.workerId = workerId;
            this.key = keyOf(workerId);
            this.handler = handler;
            this.onReady = onReady;
        }

        /** Hands the record's events to the worker one by one, in order; one that fails is logged and skipped. */
        void handle(AssignmentEvent events, ConsumerRecord<?, ?> record) {
            for (Object event : Assignments.events(events)) {
                try {
                    handler.accept(Assignments.of(event));
                } catch (RuntimeException e) {
                    log.error("Handling {} at {}-{} offset {} failed; it is skipped", event.getClass().getSimpleName(),
                            record.topic(), record.partition(), record.offset(), e);
                }
            }
        }

        void warnOnce(String message, String where, String why) {
            if (!warned) {
                log.warn(message, workerId, where, why);
                warned = true;
            }
        }

        void warnOnce(String message, String where) {
            if (!warned) {
                log.warn(message, workerId, where);
                warned = true;
            }
        }
    }
}
