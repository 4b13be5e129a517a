package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.schemas.KeyPartitions;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Pool names (and so the baseline's keys) and worker ids land on the partitions chosen for them, in every run alike. */
class PartitionedNamesTest {

    @Test
    void aNameLandsOnThePartitionAskedFor() {
        for (int partitions = 1; partitions <= 12; partitions++) {
            for (int partition = 0; partition < partitions; partition++) {
                String name = PartitionedNames.landing("bench-pool-3", partition, partitions);
                assertThat(name).startsWith("bench-pool-3-");
                assertThat(KeyPartitions.of(name, partitions)).as(name).isEqualTo(partition);
            }
        }
    }

    @Test
    void poolKIsOnPartitionKModPartitionsWhateverTheRun() {
        int partitions = 6;
        Workload one = new Workload("bench-aaaaaa", 8, 2, 16, 4, partitions);
        Workload other = new Workload("bench-bbbbbb", 8, 2, 16, 4, partitions);
        Set<String> names = new HashSet<>();
        for (int k = 0; k < 8; k++) {
            assertThat(KeyPartitions.of(one.pool(k), partitions)).as(one.pool(k)).isEqualTo(k % partitions);
            assertThat(one.pool(k)).as("the same names in every run").isEqualTo(other.pool(k))
                    .startsWith(Workload.POOL_STEM + k + "-");
            names.add(one.pool(k));
        }
        assertThat(names).hasSize(8);
    }

    @Test
    void tasksAndTheBaselinesRecordsAreKeyedByThosePools() {
        int partitions = 4;
        Workload workload = new Workload("bench-cccccc", 2, 1, 2, 1, partitions);
        for (long i = 0; i < 20; i++) {
            String key = workload.poolOfTask(i);
            assertThat(KeyPartitions.of(key, partitions)).isEqualTo((int) (i % 2));
        }
    }

    @Test
    void workerIIsOnAssignmentsPartitionIModPartitions() {
        int partitions = 6;
        Workload workload = new Workload("bench-dddddd", 2, 2, 64, 32, partitions);
        var registrations = workload.registrations(java.time.Instant.EPOCH);
        for (int i = 0; i < 64; i++) {
            String id = registrations.get(i).getWorkerId();
            assertThat(id).isEqualTo(workload.workerId(i)).startsWith("bench-dddddd-w" + i + "-");
            assertThat(KeyPartitions.of(id, partitions)).as(id).isEqualTo(i % partitions);
        }
    }

    @Test
    void aPartitionOutsideTheTopicIsRefused() {
        assertThatThrownBy(() -> PartitionedNames.landing("x", 6, 6)).isInstanceOf(IllegalArgumentException.class);
    }
}
