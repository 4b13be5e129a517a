package io.cronoq.scheduler.app;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts, promptly, a transaction of this application that has stayed open longer than the transaction
 * timeout: one a crashed instance left behind. Until it is aborted, nobody reading committed data gets
 * past it: not the instance taking the crashed one's pools over (its stored offsets and changelogs), nor
 * the workers reading assignments from the partitions it wrote to. The brokers abort such a transaction
 * themselves, but only on their next sweep (every {@code transaction.abort.timed.out.transaction.cleanup.interval.ms},
 * 10 s by default), so a failover could wait up to the timeout plus 10 s; this checks every second.
 *
 * <p>A live instance commits every {@code cronoq.commit.interval.ms}, so its transactions last milliseconds;
 * one open past the timeout belongs to a dead instance or to one stalled so long the brokers would abort it
 * too. Aborting is fencing its transactional id (as a producer starting under that id would): a stalled
 * instance then finds itself fenced, gives up its tasks and rejoins, as after the brokers' own abort. Every
 * instance runs this; two fencing the same id at once is harmless.
 *
 * <p>Transactional ids of this application are {@code <application id>-<process id>-<thread>} (exactly-once
 * v2); no other transaction is touched. It needs Describe and Write on those transactional ids, which the
 * scheduler's principal has anyway.
 */
final class StaleTransactions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StaleTransactions.class);
    private static final Duration CHECK_EVERY = Duration.ofSeconds(1);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final Admin admin;
    private final Pattern ours;
    private final long timeoutMs;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cronoq-stale-transactions");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean warned;

    private StaleTransactions(Properties adminSettings, String applicationId, long timeoutMs) {
        this.admin = Admin.create(adminSettings);
        this.ours = pattern(applicationId);
        this.timeoutMs = timeoutMs;
    }

    /** Starts checking every second for transactions of {@code applicationId} open longer than {@code timeoutMs}. */
    static StaleTransactions start(Properties adminSettings, String applicationId, long timeoutMs) {
        StaleTransactions stale = new StaleTransactions(adminSettings, applicationId, timeoutMs);
        stale.timer.scheduleWithFixedDelay(stale::check, CHECK_EVERY.toMillis(), CHECK_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        return stale;
    }

    /** The transactional ids Kafka Streams gives this application's stream threads under exactly-once v2. */
    static Pattern pattern(String applicationId) {
        return Pattern.compile(Pattern.quote(applicationId)
                + "-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9]+");
    }

    private void check() {
        try {
            List<String> stale = admin.listTransactions(new ListTransactionsOptions()
                            .filterStates(List.of(TransactionState.ONGOING)).filterOnDuration(timeoutMs))
                    .all().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream()
                    .map(TransactionListing::transactionalId).filter(id -> ours.matcher(id).matches()).toList();
            warned = false;
            if (stale.isEmpty()) {
                return;
            }
            admin.fenceProducers(stale).all().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            log.warn("Aborted {} transaction(s) open over {} ms, of a crashed or stalled instance: {}", stale.size(),
                    timeoutMs, stale);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            // The brokers' own sweep still aborts it; say so once until a check succeeds again.
            if (!warned) {
                log.warn("Could not look for or abort stale transactions (the brokers' sweep still aborts them): {}",
                        e.toString());
                warned = true;
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }
}
