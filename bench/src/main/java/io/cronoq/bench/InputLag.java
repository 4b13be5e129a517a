package io.cronoq.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** How many records of a topic a consumer group (a Kafka Streams application id) has not committed yet. */
public final class InputLag {

    private InputLag() {}

    /** Records of {@code topic} past the group's committed offsets (all of them when it committed none). */
    public static long of(String bootstrap, String groupId, String topic) {
        try (Admin admin = BenchClients.admin(bootstrap)) {
            List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
                    .partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            Map<TopicPartition, OffsetSpec> latest = partitions.stream()
                    .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
            var ends = admin.listOffsets(latest).all().get();
            Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get();
            long lag = 0;
            for (TopicPartition p : partitions) {
                OffsetAndMetadata c = committed.get(p);
                lag += ends.get(p).offset() - (c == null ? 0 : c.offset());
            }
            return lag;
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not read the lag of " + groupId + " on " + topic + ": "
                    + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
