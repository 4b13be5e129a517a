package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.bench.CpuSampler.Part;
import org.junit.jupiter.api.Test;

/** The CPU of a run is split by the threads that spend it: the workers' threads are a part of their own. */
class CpuSamplerTest {

    @Test
    void theSimulatedWorkersAndTheAgentsThreadsAreTheWorkersPart() {
        assertThat(Part.ofJavaThread("tail-bench-ab12cd-drain.assignments")).isEqualTo(Part.WORKERS);
        assertThat(Part.ofJavaThread("simulated-worker-heartbeats")).isEqualTo(Part.WORKERS);
        assertThat(Part.ofJavaThread("kafka-producer-network-thread | cronoq-bench-workers-7")).isEqualTo(Part.WORKERS);
        assertThat(Part.ofJavaThread("cronoq-assignments-bench-ab12cd-w3-1")).isEqualTo(Part.WORKERS);
        assertThat(Part.ofJavaThread("kafka-producer-network-thread | cronoq-worker-bench-ab12cd-w3-1"))
                .isEqualTo(Part.WORKERS);
        assertThat(Part.ofJavaThread("bench-agent-attempt-4")).isEqualTo(Part.WORKERS);
    }

    @Test
    void theBenchsOwnReadersAndTheSchedulerAreNot() {
        assertThat(Part.ofJavaThread("tail-bench-ab12cd-drain.journal")).isNull();
        assertThat(Part.ofJavaThread("kafka-producer-network-thread | cronoq-bench-load-3")).isNull();
        assertThat(Part.ofJavaThread("cronoq-stale-transactions")).isNull();
        assertThat(Part.ofJavaThread("bench-ab12cd-drain-0f-StreamThread-1")).isEqualTo(Part.STREAM_THREADS);
        assertThat(Part.ofJavaThread("kafka-producer-network-thread | bench-ab12cd-drain-0f-StreamThread-1-producer"))
                .isEqualTo(Part.STREAM_PRODUCERS);
    }
}
