package io.cronoq.agent;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Where each worker's reading position on its assignments partition is kept: the offset committed in the worker's
 * own consumer group, {@code cronoq-worker-<id>}.
 */
interface CommittedOffsets {

    /**
     * The worker's committed offset on {@code partition}, or {@code null} when it never committed one there; waits
     * at most {@code timeout}.
     */
    Long committed(String workerId, TopicPartition partition, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException;

    /** Commits {@code offset} as the worker's position on {@code partition}; completes once it is written. */
    CompletableFuture<Void> commit(String workerId, TopicPartition partition, long offset);

    /** The offsets as an admin client reads and writes them, with no consumer of the group needed. */
    static CommittedOffsets of(Admin admin) {
        return new CommittedOffsets() {
            @Override
            public Long committed(String workerId, TopicPartition partition, Duration timeout)
                    throws InterruptedException, ExecutionException, TimeoutException {
                OffsetAndMetadata committed = admin.listConsumerGroupOffsets(CronoqWorker.groupId(workerId))
                        .partitionsToOffsetAndMetadata().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .get(partition);
                return committed == null ? null : committed.offset();
            }

            @Override
            public CompletableFuture<Void> commit(String workerId, TopicPartition partition, long offset) {
                return admin.alterConsumerGroupOffsets(CronoqWorker.groupId(workerId),
                        Map.of(partition, new OffsetAndMetadata(offset))).all().toCompletionStage()
                        .toCompletableFuture();
            }
        };
    }
}
