package io.cronoq.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.scheduler.config.SchedulerConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka Streams settings a scheduler runs with, and which of them a configuration may override. */
class StreamsPropertiesTest {

    private static final String PRODUCER_LINGER = StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG);

    @Test
    void exactlyOnceWithTheDefaultCommitIntervalBatchesForTenMillisecondsAndNeverIdles() {
        Properties props = SchedulerApp.streamsProperties(config(Map.of()));

        assertThat(props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(props.get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(20);
        assertThat(props.get(PRODUCER_LINGER)).isEqualTo(10);
        assertThat(props.get(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG)))
                .as("a batch refused while the last transaction completes is retried soon").isEqualTo(10);
        assertThat(props.get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG))
                .as("the order across input topics does not matter: the leave grace")
                .isEqualTo(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
    }

    @Test
    void aPollWaitsForInputAtMostOneCommitIntervalUnlessConfigured() {
        assertThat(SchedulerApp.streamsProperties(config(Map.of())).get(StreamsConfig.POLL_MS_CONFIG))
                .as("a commit due while the input pauses waits for the poll").isEqualTo(20);
        assertThat(SchedulerApp.streamsProperties(config(Map.of(SchedulerConfig.COMMIT_INTERVAL_MS.name(), "50")))
                .get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo(50);
        assertThat(SchedulerApp.streamsProperties(config(Map.of(StreamsConfig.POLL_MS_CONFIG, "5")))
                .get(StreamsConfig.POLL_MS_CONFIG)).isEqualTo("5");
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
                ProducerConfig.LINGER_MS_CONFIG, "3", StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, "0",
                ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "250")));
        Properties prefixed = SchedulerApp.streamsProperties(config(Map.of(PRODUCER_LINGER, "7")));

        assertThat(unprefixed.get(ProducerConfig.LINGER_MS_CONFIG)).isEqualTo("3");
        assertThat(unprefixed).doesNotContainKey(PRODUCER_LINGER);
        assertThat(unprefixed.get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)).isEqualTo("0");
        assertThat(unprefixed.get(ProducerConfig.RETRY_BACKOFF_MS_CONFIG)).isEqualTo("250");
        assertThat(unprefixed).doesNotContainKey(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG));
        assertThat(prefixed.get(PRODUCER_LINGER)).isEqualTo("7");
    }

    @Test
    void failoverSettingsReachTheStreamThreadsClients() {
        Properties props = SchedulerApp.streamsProperties(config(Map.of(SchedulerConfig.INSTANCE_ID.name(), "sched-0")));

        assertThat(props.get(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG))).isEqualTo("sched-0");
        assertThat(props.get(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG))).isEqualTo(6000);
        assertThat(props.get(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG))).isEqualTo(500);
        assertThat(props.get(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG)).isEqualTo(2000);
        assertThat(props.get(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG)).as("a dirty close keeps committed state")
                .isEqualTo(true);
        assertThat(props.get(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG)).isEqualTo(60000);
        assertThat(props.get(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG))).isEqualTo(5000);
        assertThat(props.get(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG)).isEqualTo(1);
        assertThat(props.get(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG))
                .as("every client of the instance is back soon after a broker's restart").isEqualTo(250);
        assertThat(props.get(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG)).isEqualTo(250);
        assertThat(props.get(StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG)))
                .as("a task with nothing to restore runs without waiting out a fetch").isEqualTo(10);
        assertThat(SchedulerApp.streamsProperties(config(Map.of(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "900")))
                .get(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG)).as("unless configured").isEqualTo("900");
    }

    @Test
    void theDefaultInstanceIdIsStablePerHostAndStateDirectoryAndDistinctAcrossStateDirectories(@TempDir Path dir) {
        SchedulerConfig one = config(Map.of(SchedulerConfig.STATE_DIR.name(), dir.resolve("one").toString()));
        SchedulerConfig again = config(Map.of(SchedulerConfig.STATE_DIR.name(), dir.resolve("x/../one").toString()));
        SchedulerConfig two = config(Map.of(SchedulerConfig.STATE_DIR.name(), dir.resolve("two").toString()));

        assertThat(SchedulerApp.instanceId(one)).isEqualTo(SchedulerApp.instanceId(again)).matches(".+-[0-9a-f]{8}");
        assertThat(SchedulerApp.instanceId(two)).isNotEqualTo(SchedulerApp.instanceId(one));
        assertThat(SchedulerApp.instanceId(config(Map.of(SchedulerConfig.INSTANCE_ID.name(), " sched-1 "))))
                .isEqualTo("sched-1");
    }

    @Test
    void theKafkaFormsOfTheFailoverSettingsAreRefusedNamingCronoqsKey() {
        assertThatThrownBy(() -> config(Map.of("session.timeout.ms", "10000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'session.timeout.ms' is set by cronoq; use cronoq.session.timeout.ms instead");
        assertThatThrownBy(() -> config(Map.of("producer.transaction.timeout.ms", "10000")))
                .hasMessage("'producer.transaction.timeout.ms' is set by cronoq; use cronoq.transaction.timeout.ms instead");
        assertThatThrownBy(() -> config(Map.of("main.consumer.group.instance.id", "x")))
                .hasMessage("'main.consumer.group.instance.id' is set by cronoq; use cronoq.instance.id instead");
        assertThatThrownBy(() -> config(Map.of(SchedulerConfig.HEARTBEAT_INTERVAL_MS.name(), "6000")))
                .hasMessageStartingWith("cronoq.heartbeat.interval.ms is 6000; it must be below cronoq.session.timeout.ms");
        assertThatThrownBy(() -> config(Map.of(SchedulerConfig.TRANSACTION_TIMEOUT_MS.name(), "20")))
                .hasMessageStartingWith("cronoq.transaction.timeout.ms is 20; it must be far above");
        assertThatThrownBy(() -> config(Map.of("acceptable.recovery.lag", "10000")))
                .hasMessage("'acceptable.recovery.lag' is set by cronoq; use cronoq.acceptable.recovery.lag instead");
        assertThatThrownBy(() -> config(Map.of(SchedulerConfig.PROBING_REBALANCE_INTERVAL_MS.name(), "1000")))
                .hasMessageContaining("cronoq.probing.rebalance.interval.ms")
                .hasMessageContaining("60000");
    }

    @Test
    void onlyThisApplicationsExactlyOnceTransactionalIdsAreEverAborted() {
        var ours = StaleTransactions.pattern("cronoq-scheduler");
        assertThat(ours.matcher("cronoq-scheduler-3f5da81d-dee4-489f-a09f-b9a59208126b-1").matches()).isTrue();
        assertThat(ours.matcher("cronoq-scheduler-2-3f5da81d-dee4-489f-a09f-b9a59208126b-1").matches())
                .as("another application whose id starts alike").isFalse();
        assertThat(ours.matcher("cronoq-scheduler-3f5da81d-dee4-489f-a09f-b9a59208126b-1-x").matches()).isFalse();
        assertThat(StaleTransactions.pattern("a.b").matcher("aXb-3f5da81d-dee4-489f-a09f-b9a59208126b-1").matches())
                .as("the application id is literal").isFalse();
    }

    private static SchedulerConfig config(Map<String, String> overrides) {
        Map<String, String> values = new HashMap<>(overrides);
        values.put(SchedulerConfig.BOOTSTRAP_SERVERS.name(), "localhost:9092");
        return SchedulerConfig.of(values);
    }
}
