package io.cronoq.ops.bench;

import java.util.List;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Removes what a bench run left on an external broker: every topic whose name starts with the run's id. */
final class BenchTopics {

    private static final Logger log = LoggerFactory.getLogger(BenchTopics.class);

    private BenchTopics() {}

    static void deleteAll(String bootstrap, String runId) {
        try (Admin admin = BenchClients.admin(bootstrap)) {
            List<String> names = admin.listTopics().names().get().stream().filter(n -> n.startsWith(runId)).toList();
            admin.deleteTopics(names).all().get();
            log.info("Deleted the bench's {} topics", names.size());
        } catch (ExecutionException e) {
            log.warn("Could not delete the bench's topics (prefix {}): {}", runId, e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
