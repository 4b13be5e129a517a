package io.cronoq.gateway;

import io.cronoq.scheduler.topology.StoreNames;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Which scheduler instance owns what, from Kafka Streams' metadata: the owner of a pool
 * ({@code queryMetadataForKey} on the pools store — inputs are keyed by pool, so a pool lives in one
 * partition) and the instances that together own every input partition.
 *
 * @param self           this instance's {@code application.server}, or {@code null} when not set (single instance)
 * @param partitionCount the number of partitions of {@code inputTopic}
 */
record Ownership(KafkaStreams streams, HostInfo self, String inputTopic, IntSupplier partitionCount,
                 LocalStateReader local) {

    private static final StringSerializer KEYS = new StringSerializer();

    /** The instance that owns the pool when it is another one; empty when this instance owns it. */
    Optional<HostInfo> remoteOwner(String pool) {
        local.requireRunning();
        if (self == null) {
            requireAllLocal();
            return Optional.empty();
        }
        KeyQueryMetadata md = streams.queryMetadataForKey(StoreNames.POOLS, pool, KEYS);
        if (md == null || md.equals(KeyQueryMetadata.NOT_AVAILABLE) || md.activeHost() == null
                || md.activeHost().port() < 0) {
            throw ApiException.unavailable("the owner of pool " + pool + " is not known yet (the scheduler "
                    + "instances are rebalancing)", null);
        }
        return md.activeHost().equals(self) ? Optional.empty() : Optional.of(md.activeHost());
    }

    /**
     * The other instances that, with this one, own every input partition; throws UNAVAILABLE when
     * some partition has no owner yet, since an answer without it would be silently incomplete.
     */
    List<HostInfo> peers() {
        local.requireRunning();
        if (self == null) {
            requireAllLocal();
            return List.of();
        }
        Set<Integer> covered = new HashSet<>();
        List<HostInfo> peers = new ArrayList<>();
        inputOwners().forEach((host, owned) -> {
            covered.addAll(owned);
            if (!host.equals(self)) {
                peers.add(host);
            }
        });
        int partitions = partitionCount.getAsInt();
        if (covered.size() < partitions) {
            throw ApiException.unavailable(covered.size() + " of the " + partitions + " input partitions have an "
                    + "active owner; the scheduler instances are rebalancing", null);
        }
        return peers;
    }

    /**
     * The input partitions whose pools this instance cannot serve now: those with no active owner
     * (the instances are rebalancing), an owner that does not answer (it died and its session has not
     * expired yet), or, without forwarding, those another instance owns. While this is not 0 some pools are neither scheduled
     * nor answered here.
     */
    int unservedPartitions(Predicate<HostInfo> answers) {
        int partitions = partitionCount.getAsInt();
        if (self == null) {
            return Math.max(0, partitions - local.ownedPartitions().size());
        }
        Set<Integer> covered = new HashSet<>();
        inputOwners().forEach((host, owned) -> {
            // A killed owner stays in the metadata until its session expires: it serves nothing meanwhile.
            if (host.equals(self) || answers.test(host)) {
                covered.addAll(owned);
            }
        });
        return Math.max(0, partitions - covered.size());
    }

    /** Each instance (by its {@code application.server}) that owns input partitions, with those partitions. */
    private Map<HostInfo, Set<Integer>> inputOwners() {
        Map<HostInfo, Set<Integer>> owners = new LinkedHashMap<>();
        for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
            if (m.hostInfo() == null || m.hostInfo().port() < 0) {
                continue;
            }
            for (TopicPartition tp : m.topicPartitions()) {
                if (tp.topic().equals(inputTopic)) {
                    owners.computeIfAbsent(m.hostInfo(), h -> new HashSet<>()).add(tp.partition());
                }
            }
        }
        return owners;
    }

    /** Without {@code application.server} nothing can be forwarded: this instance must own every partition. */
    private void requireAllLocal() {
        int owned = local.ownedPartitions().size();
        int partitions = partitionCount.getAsInt();
        if (owned < partitions) {
            throw ApiException.unavailable("this instance owns " + owned + " of the " + partitions + " input "
                    + "partitions and cannot forward to the others: set cronoq.application.server on every "
                    + "scheduler instance", null);
        }
    }

    /** Whether this instance is configured for forwarding. */
    boolean forwarding() {
        return self != null;
    }
}
