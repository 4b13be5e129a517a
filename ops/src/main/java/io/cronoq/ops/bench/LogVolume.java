package io.cronoq.ops.bench;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * How many log entries each topic of a phase holds (end minus start offsets, so transaction
 * markers count too): the write amplification behind a throughput figure, e.g. journal entries and
 * changelog records per task against one output and one changelog record per baseline record.
 */
public final class LogVolume {

    private LogVolume() {}

    /** Entries per topic, for every topic whose name starts with {@code prefix}, keyed by the rest of the name. */
    public static Map<String, Long> of(String bootstrap, String prefix) {
        try (Admin admin = BenchClients.admin(bootstrap)) {
            List<String> names = admin.listTopics().names().get().stream().filter(n -> n.startsWith(prefix)).toList();
            Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames().get();
            List<TopicPartition> partitions = described.values().stream()
                    .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                    .toList();
            var ends = admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())))
                    .all().get();
            var starts = admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.earliest())))
                    .all().get();
            Map<String, Long> volume = new TreeMap<>();
            for (TopicPartition p : partitions) {
                long entries = ends.get(p).offset() - starts.get(p).offset();
                volume.merge(p.topic().substring(prefix.length()), entries, Long::sum);
            }
            volume.values().removeIf(v -> v == 0);
            return volume;
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not measure the topics under " + prefix + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Each volume divided by {@code per}. */
    public static Map<String, Double> per(Map<String, Long> volume, long per) {
        Map<String, Double> out = new TreeMap<>();
        volume.forEach((topic, entries) -> out.put(topic, per == 0 ? 0 : (double) entries / per));
        return out;
    }
}
