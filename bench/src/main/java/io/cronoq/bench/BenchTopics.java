package io.cronoq.bench;

import io.cronoq.agent.CronoqWorker;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what a bench run left on an external broker: every topic whose name starts with the run's
 * id, and the consumer groups of its applications and of its worker agents.
 */
final class BenchTopics {

    private static final Logger log = LoggerFactory.getLogger(BenchTopics.class);

    private BenchTopics() {}

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
