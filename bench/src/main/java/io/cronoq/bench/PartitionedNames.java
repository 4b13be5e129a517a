package io.cronoq.bench;

import io.cronoq.schemas.KeyPartitions;

/**
 * Names chosen for the partition they land on: {@code <stem>-<n>} for the first {@code n} that Kafka's
 * default partitioner ({@link KeyPartitions}) puts in the partition wanted. The bench keys its pools
 * (and so its submissions and baseline records) and its workers with such names, so that pool
 * {@code k} is on partition {@code k mod partitions} in every run and two runs load the same
 * partitions the same way.
 */
public final class PartitionedNames {

    private PartitionedNames() {}

    /** The first {@code <stem>-<n>} (n = 0, 1, ...) that lands on {@code partition} of {@code partitions}. */
    public static String landing(String stem, int partition, int partitions) {
        if (partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("partition " + partition + " is not one of " + partitions);
        }
        for (int n = 0; ; n++) {
            String name = stem + "-" + n;
            if (KeyPartitions.of(name, partitions) == partition) {
                return name;
            }
        }
    }

    /** The name for item {@code index} of a spread: {@code <stem><index>-<n>} on partition {@code index mod partitions}. */
    public static String spread(String stem, int index, int partitions) {
        return landing(stem + index, index % partitions, partitions);
    }
}
