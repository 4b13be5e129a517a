package io.cronoq.schemas;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.apache.kafka.clients.admin.NewTopic;

/** How cronoq recommends creating one of its topics: name, partition count and topic configs. */
public record TopicSpec(String name, int partitions, Map<String, String> configs) {

    /** Checks the fields and freezes the configs. */
    public TopicSpec {
        Objects.requireNonNull(name, "name");
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least 1 partition, got " + partitions + " for " + name);
        }
        configs = Map.copyOf(configs);
    }

    /** The spec as an admin-client request, with the broker's default replication factor. */
    public NewTopic toNewTopic() {
        return new NewTopic(name, Optional.of(partitions), Optional.empty()).configs(configs);
    }
}
