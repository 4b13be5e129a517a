package io.cronoq.bench;

import io.cronoq.agent.CronoqWorker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bench's topics on the broker: how it has the assignments stamped, and, after a run on an external broker,
 * the removal of every topic whose name starts with the run's id and of the consumer groups of its applications
 * and of its worker agents.
 */
final class BenchTopics {

    private static final Logger log = LoggerFactory.getLogger(BenchTopics.class);

    private BenchTopics() {}

    /**
     * Has the broker stamp {@code topic}'s records with the time it appends them ({@code LogAppendTime}), as the bench
     * reads an assignment's append time from its timestamp ({@link Hops}). A broker that refuses it costs only that
     * split: the failure is logged.
     */
    static void stampAtAppend(String bootstrap, String topic) {
        try (Admin admin = BenchClients.admin(bootstrap)) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            AlterConfigOp op = new AlterConfigOp(new ConfigEntry(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
                    TimestampType.LOG_APPEND_TIME.name), AlterConfigOp.OpType.SET);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get();
        } catch (ExecutionException e) {
            log.warn("Could not have {} stamped at append, so the time to its log and the time to commit are reported"
                    + " as one: {}", topic, e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Removes every topic and consumer group of run {@code runId}. */
    static void deleteAll(String bootstrap, String runId) {
        try (Admin admin = BenchClients.admin(bootstrap)) {
            List<String> names = admin.listTopics().names().get().stream().filter(n -> n.startsWith(runId)).toList();
            admin.deleteTopics(names).all().get();
            log.info("Deleted the bench's {} topics", names.size());
            String agentGroups = CronoqWorker.groupId(runId);
            List<String> groups = admin.listGroups().all().get().stream().map(GroupListing::groupId)
                    .filter(g -> g.startsWith(runId) || g.startsWith(agentGroups)).toList();
            admin.deleteConsumerGroups(groups).all().get();
            log.info("Deleted the bench's {} consumer groups", groups.size());
        } catch (ExecutionException e) {
            log.warn("Could not delete the bench's topics and groups (prefix {}): {}", runId, e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
