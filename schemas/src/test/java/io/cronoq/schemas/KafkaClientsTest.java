package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each kind of client keeps the common settings it knows and adds what cronoq's guarantees rest on. */
class KafkaClientsTest {

    private static final Map<String, Object> COMMON = Map.of("bootstrap.servers", "b:9092", "linger.ms", 20,
            "group.id", "someone-elses", "security.protocol", "SSL", "max.poll.records", 50);

    @Test
    void aDurableProducerAlwaysAcknowledgesAllAndNeverWritesTwice() {
        Map<String, Object> producer = KafkaClients.durableProducer(COMMON, "p");
        assertThat(producer).containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                .containsEntry("linger.ms", 20).containsEntry("client.id", "p")
                .containsEntry("security.protocol", "SSL").doesNotContainKeys("group.id", "max.poll.records");
        assertThatThrownBy(() -> KafkaClients.durableProducer(Map.of("acks", "1"), "p"))
                .hasMessageContaining("acks=1").hasMessageContaining("remove the setting");
        assertThatThrownBy(() -> KafkaClients.durableProducer(Map.of("enable.idempotence", "false"), "p"))
                .hasMessageContaining("enable.idempotence=false");
    }

    @Test
    void aLogReaderReadsCommittedRecordsOutsideAnyGroup() {
        Map<String, Object> reader = KafkaClients.logReader(COMMON, "r");
        assertThat(reader).doesNotContainKeys("group.id", "linger.ms")
                .containsEntry("isolation.level", "read_committed").containsEntry("enable.auto.commit", false)
                .containsEntry("allow.auto.create.topics", false).containsEntry("max.poll.records", 50)
                .containsEntry("client.id", "r");
    }

    @Test
    void anAdminClientKeepsWhatAnAdminClientKnows() {
        assertThat(KafkaClients.admin(COMMON, "a")).containsEntry("bootstrap.servers", "b:9092")
                .containsEntry("client.id", "a").doesNotContainKeys("linger.ms", "group.id");
    }

    @Test
    void everyKindTriesAnUnreachableBrokerAgainWithinAQuarterSecondUnlessTold() {
        for (String key : new String[] {"reconnect.backoff.max.ms", "retry.backoff.max.ms"}) {
            assertThat(KafkaClients.durableProducer(COMMON, "p")).as(key).containsEntry(key, 250);
            assertThat(KafkaClients.logReader(COMMON, "r")).as(key).containsEntry(key, 250);
            assertThat(KafkaClients.admin(COMMON, "a")).as(key).containsEntry(key, 250);

            Map<String, Object> told = Map.of(key, 2000);
            assertThat(KafkaClients.durableProducer(told, "p")).as(key).containsEntry(key, 2000);
            assertThat(KafkaClients.logReader(told, "r")).as(key).containsEntry(key, 2000);
            assertThat(KafkaClients.admin(told, "a")).as(key).containsEntry(key, 2000);

            // A first back-off set without a cap is not cut down to cronoq's cap: Kafka's own handling applies.
            String first = key.replace(".max", "");
            Map<String, Object> longFirst = Map.of(first, 2000);
            assertThat(KafkaClients.durableProducer(longFirst, "p")).as(first).doesNotContainKey(key);
            assertThat(KafkaClients.logReader(longFirst, "r")).as(first).doesNotContainKey(key);
            assertThat(KafkaClients.admin(longFirst, "a")).as(first).doesNotContainKey(key);
        }
    }
}
