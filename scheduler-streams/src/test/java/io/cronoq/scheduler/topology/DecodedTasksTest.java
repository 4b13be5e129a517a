package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.topology.IndexedTaskStoreTest.finished;
import static io.cronoq.scheduler.topology.IndexedTaskStoreTest.inLine;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.topology.StorePoolStore.DecodedTasks;
import org.junit.jupiter.api.Test;

class DecodedTasksTest {

    @Test
    void keepsAnUnfinishedTaskAndLetsItGoOnceItFinishes() {
        DecodedTasks decoded = new DecodedTasks();
        decoded.keep("p/a", inLine("a", 1));
        assertThat(decoded).containsOnlyKeys("p/a");

        decoded.keep("p/a", finished("a", 1));
        assertThat(decoded).as("a finished task is not kept").isEmpty();

        decoded.keep("p/b", finished("b", 2));
        assertThat(decoded).as("nor one read back finished").isEmpty();
    }

    @Test
    void holdsAtMostItsCapacityLeastRecentlyUsedFirstOut() {
        DecodedTasks decoded = new DecodedTasks();
        for (int i = 0; i <= DecodedTasks.CAPACITY; i++) {
            decoded.keep("p/t" + i, inLine("t" + i, i));
            if (i == 1) {
                decoded.get("p/t0"); // used again: t1 is now the least recently used
            }
        }
        assertThat(decoded).hasSize(DecodedTasks.CAPACITY).containsKey("p/t0").doesNotContainKey("p/t1");
    }
}
