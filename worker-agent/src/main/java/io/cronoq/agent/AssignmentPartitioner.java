package io.cronoq.agent;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The assignments partition a worker id lands in, computed exactly as Kafka's default partitioner places a keyed
 * record (murmur2 of the UTF-8 key, made positive, modulo the partition count), which is how the scheduler's sink
 * writes assignments.
 */
public final class AssignmentPartitioner {

    private AssignmentPartitioner() {
    }

    /** The partition of {@code workerId} among {@code partitions}. */
    public static int partitionOf(String workerId, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic has at least 1 partition, got " + partitions);
        }
        return Utils.toPositive(Utils.murmur2(workerId.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
