package io.cronoq.gateway;

import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.forecast.Forecast;
import io.cronoq.scheduler.policy.forecast.Forecaster;
import io.cronoq.scheduler.policy.forecast.RunTimes;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's start estimates: per pool, the last {@link Forecast}, made anew on one background
 * thread when someone asks and the last is stale — over a second old, or over four times as old as
 * it took to make, so a pool whose forecast takes long costs at most a fifth of a core — so
 * forecasting stays off the scheduler's path and costs nothing while no one asks. An answer comes
 * from the last forecast at once; only a pool's first question, or one about a task that began
 * waiting after the last forecast, waits for the next (a few seconds at most). Run times come from
 * the journal the gateway reads ({@link RunTimes}).
 */
final class Forecasts implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Forecasts.class);
    /** A forecast younger than this is answered from as it is... */
    static final long FRESH_MS = 1_000;
    /** ...or younger than this many times what it took to make. */
    static final long FRESH_TIMES_COST = 4;
    /** How long a question waits for a forecast: a pool's first, or one that knows a task that began waiting after the last. */
    private static final long FIRST_WAIT_MS = 5_000;

    /** Makes one forecast of a pool with this forecaster, run times and time; empty when no local store holds it. */
    interface Maker {
        java.util.Optional<Forecast> make(Forecaster forecaster, RunTimes.Lookup runTimes, Instant now);
    }

    private final RunTimes runTimes;
    private final Forecaster forecaster;
    private final Clock clock;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cronoq-gateway-forecast");
        t.setDaemon(true);
        return t;
    });
    /** A pool's last forecast, and how long it took to make. */
    private record Made(Forecast forecast, long tookMs) {}

    private final Map<String, Made> last = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Forecast>> making = new ConcurrentHashMap<>();

    Forecasts(RunTimes runTimes, TimeRules rules, Clock clock) {
        this.runTimes = runTimes;
        this.forecaster = new Forecaster(rules, Forecaster.Settings.DEFAULT);
        this.clock = clock;
    }

    /**
     * The pool's forecast to answer from: the last one, starting a new one when it is stale;
     * for a pool never forecast, the first one (waited for, at most a few seconds). {@code null} when there
     * is none to give.
     */
    Forecast of(String pool, Maker maker) {
        return of(pool, maker, null);
    }

    /**
     * As {@link #of(String, Maker)}; when {@code after} is given (a task began waiting then) and the last
     * forecast is older, it cannot know the task: a new one is made and waited for.
     */
    private Forecast of(String pool, Maker maker, Instant after) {
        Made made = last.get(pool);
        Forecast known = made == null ? null : made.forecast();
        long now = clock.millis();
        boolean blind = known != null && after != null && known.madeAt().isBefore(after);
        if (known != null && !blind
                && now - known.madeAt().toEpochMilli() < Math.max(FRESH_MS, FRESH_TIMES_COST * made.tookMs())) {
            return known;
        }
        CompletableFuture<Forecast> next = making.computeIfAbsent(pool, p -> CompletableFuture.supplyAsync(() -> {
            try {
                Instant at = clock.instant();
                long started = System.nanoTime();
                Forecast forecast = maker.make(forecaster, runTimes.lookup(p, at.toEpochMilli()), at).orElse(null);
                if (forecast != null) {
                    last.put(p, new Made(forecast, (System.nanoTime() - started) / 1_000_000));
                }
                return forecast;
            } catch (RuntimeException e) {
                log.warn("forecasting pool {} failed; its tasks show no estimate until a forecast succeeds", p, e);
                return null;
            } finally {
                making.remove(p);
            }
        }, thread));
        if (known != null && !blind) {
            return known;
        }
        try {
            Forecast waited = next.get(FIRST_WAIT_MS, TimeUnit.MILLISECONDS);
            return waited != null ? waited : known;
        } catch (TimeoutException | ExecutionException e) {
            return known;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return known;
        }
    }

    /**
     * The estimate of one waiting task, waiting since {@code since} ({@code null}: unknown): from the pool's
     * forecast (one made after it began waiting), or why there is none.
     */
    Forecast.Estimate estimate(String pool, String taskId, Instant since, Maker maker) {
        Forecast forecast = of(pool, maker, since);
        if (forecast == null) {
            return Forecast.Estimate.none(null, "no forecast of the pool yet; ask again in a moment");
        }
        Forecast.Estimate e = forecast.estimate(taskId);
        return e != null ? e : Forecast.Estimate.none(null, "it began waiting after the pool's last forecast ("
                + forecast.madeAt() + "); the next one includes it");
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
