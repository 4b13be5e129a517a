package io.cronoq.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

/**
 * How much each topic of a phase holds: log entries (end minus start offsets, so transaction markers
 * count too) and bytes (the size of its partitions' logs as the brokers report them, one replica of
 * each). Every phase has topics of its own, so that is what the phase wrote: the write amplification
 * behind a throughput figure, e.g. journal entries and changelog records per task against one output
 * and one changelog record per baseline record.
 */
public final class LogVolume {

    private LogVolume() {}

    /** Entries per topic, for every topic whose name starts with {@code prefix}, keyed by the rest of the name. */
    public static Map<String, Long> of(String bootstrap, String prefix) {
        return asking(bootstrap, "could not measure the topics under " + prefix, admin -> {
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
        });
    }

    /**
     * Bytes per topic on disk, for every topic whose name starts with {@code prefix}, keyed by the rest of the name:
     * the log segments of one replica of each partition (the largest, should replicas differ), record batches with
     * their headers and transaction markers included, indexes not.
     */
    public static Map<String, Long> bytesOf(String bootstrap, String prefix) {
        return asking(bootstrap, "could not read the log sizes under " + prefix, admin -> {
            List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
            Map<TopicPartition, Long> largest = new HashMap<>();
            var described = admin.describeLogDirs(brokers).allDescriptions().get();
            for (Map<String, LogDirDescription> dirs : described.values()) {
                for (LogDirDescription dir : dirs.values()) {
                    dir.replicaInfos().forEach((partition, replica) -> {
                        if (partition.topic().startsWith(prefix) && !replica.isFuture()) {
                            largest.merge(partition, replica.size(), Math::max);
                        }
                    });
                }
            }
            Map<String, Long> bytes = new TreeMap<>();
            largest.forEach((p, size) -> bytes.merge(p.topic().substring(prefix.length()), size, Long::sum));
            bytes.values().removeIf(v -> v == 0);
            return bytes;
        });
    }

    /** What the brokers answer to questions an admin client asks them. */
    private interface Question<T> {
        T ask(Admin admin) throws ExecutionException, InterruptedException;
    }

    /** The answer to {@code question}, asked of the brokers at {@code bootstrap}; a failure says what {@code failed}. */
    private static <T> T asking(String bootstrap, String failed, Question<T> question) {
        try (Admin admin = BenchClients.admin(bootstrap)) {
            return question.ask(admin);
        } catch (ExecutionException e) {
            throw new IllegalStateException(failed + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** What each topic gained since {@code before}: topics that gained nothing are left out. */
    public static Map<String, Long> since(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> out = new TreeMap<>();
        after.forEach((topic, volume) -> {
            long gained = volume - before.getOrDefault(topic, 0L);
            if (gained > 0) {
                out.put(topic, gained);
            }
        });
        return out;
    }

    /** Each volume divided by {@code per}. */
    public static Map<String, Double> per(Map<String, Long> volume, long per) {
        Map<String, Double> out = new TreeMap<>();
        volume.forEach((topic, entries) -> out.put(topic, per == 0 ? 0 : (double) entries / per));
        return out;
    }
}
