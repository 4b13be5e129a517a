package io.cronoq.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.config.SchedulerConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/** The Kafka Streams settings a scheduler runs with, and which of them a configuration may override. */
class StreamsPropertiesTest {

    private static final String PRODUCER_LINGER = StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG);

    @Test
    void exactlyOnceWithTheDefaultCommitIntervalBatchesForTenMillisecondsAndKeepsDefaultIdling() {
        Properties props = SchedulerApp.streamsProperties(config(Map.of()));

        assertThat(props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(props.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(20);
        assertThat(props.get(PRODUCER_LINGER)).isEqualTo(10);
        assertThat(props).doesNotContainKey(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG);
    }

    @Test
    void atLeastOnceSendsAtOnceBecauseRecordsAreVisibleWhenWritten() {
        Properties props = SchedulerApp.streamsProperties(config(Map.of(
                SchedulerConfig.PROCESSING_GUARANTEE.name(), StreamsConfig.AT_LEAST_ONCE)));

        assertThat(props.get(PRODUCER_LINGER)).isEqualTo(0);
    }

    @Test
    void aConfiguredLingerOrIdleTimeWins() {
        Properties unprefixed = SchedulerApp.streamsProperties(config(Map.of(
                ProducerConfig.LINGER_MS_CONFIG, "3", StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, "0")));
        Properties prefixed = SchedulerApp.streamsProperties(config(Map.of(PRODUCER_LINGER, "7")));

        assertThat(unprefixed.get(ProducerConfig.LINGER_MS_CONFIG)).isEqualTo("3");
        assertThat(unprefixed).doesNotContainKey(PRODUCER_LINGER);
        assertThat(unprefixed.get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)).isEqualTo("0");
        assertThat(prefixed.get(PRODUCER_LINGER)).isEqualTo("7");
    }

    private static SchedulerConfig config(Map<String, String> overrides) {
        Map<String, String> values = new HashMap<>(overrides);
        values.put(SchedulerConfig.BOOTSTRAP_SERVERS.name(), "localhost:9092");
        return SchedulerConfig.of(values);
    }
}
