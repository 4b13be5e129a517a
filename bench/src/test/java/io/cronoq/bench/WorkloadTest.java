package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    private final Workload workload = new Workload("run", 2, 2, 4, 1, 3);

    @Test
    void aTaskItMadeIsKnownByItsNumber() {
        assertThat(workload.indexOf(workload.task(42, 0, Instant.EPOCH).getTaskId())).isEqualTo(42);
        assertThat(workload.indexOf(workload.task(0, 0, Instant.EPOCH).getTaskId())).isZero();
    }

    @Test
    void anyOtherIdHasNoNumber() {
        assertThat(workload.indexOf(workload.backlogTask(7, 0, Instant.EPOCH).getTaskId())).isEqualTo(-1);
        assertThat(workload.indexOf("run-t")).isEqualTo(-1);
        assertThat(workload.indexOf("run-t4x")).isEqualTo(-1);
        assertThat(workload.indexOf("other-t5")).isEqualTo(-1);
        assertThat(workload.indexOf("run-t99999999999999999999")).isEqualTo(-1);
    }
}
