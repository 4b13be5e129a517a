package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

/** A reader of one key reads the partition a producer writes that key to. */
class KeyPartitionsTest {

    @Test
    void agreesWithKafkasDefaultPartitionerForKeyedRecords() {
        for (String id : new String[] {"w-1", "gpu-node-3-41234", "app.inference.unlabeled", "Ä-ü"}) {
            for (int partitions : new int[] {1, 4, 6, 50}) {
                assertThat(KeyPartitions.of(id, partitions)).as(id + " over " + partitions)
                        .isEqualTo(BuiltInPartitioner.partitionForKey(id.getBytes(StandardCharsets.UTF_8), partitions));
            }
        }
    }
}
