package io.cronoq.schemas;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The partition a record keyed by a string lands in, computed exactly as Kafka's default
 * partitioner (and Kafka Streams' sinks) place a keyed record: murmur2 of the UTF-8 key, made
 * positive, modulo the partition count. Every cronoq topic is keyed this way (by pool on the input
 * topics and the journal, by worker id on the assignments topic), so a reader that follows one
 * pool or one worker reads one partition.
 */
public final class KeyPartitions {

    private KeyPartitions() {}

    /** The partition of {@code key} among {@code partitions}. */
    public static int of(String key, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic has at least 1 partition, got " + partitions);
        }
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
