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
 * thread when someone asks and the last is over a second old, so forecasting stays off the
 * scheduler's path and costs nothing while no one asks. An answer comes from the last forecast at
 * once; only a pool's first question waits for its first forecast (a few seconds at most). Run
 * times come from the journal the gateway reads ({@link RunTimes}).
 */
final class Forecasts implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Forecasts.class);
    /** A forecast younger than this is answered from as it is. */
    static final long FRESH_MS = 1_000;
    /** How long a pool's first question waits for its first forecast. */
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
    private final Map<String, Forecast> last = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Forecast>> making = new ConcurrentHashMap<>();

    Forecasts(RunTimes runTimes, TimeRules rules, Clock clock) {
        this.runTimes = runTimes;
        this.forecaster = new Forecaster(rules, Forecaster.Settings.DEFAULT);
        this.clock = clock;
    }

    /**
     * The pool's forecast to answer from: the last one, starting a new one when it is over a second old;
     * for a pool never forecast, the first one (waited for). {@code null} when there is none to give.
     */
    Forecast of(String pool, Maker maker) {
        Forecast known = last.get(pool);
        long now = clock.millis();
        if (known != null && now - known.madeAt().toEpochMilli() < FRESH_MS) {
            return known;
        }
        CompletableFuture<Forecast> next = making.computeIfAbsent(pool, p -> CompletableFuture.supplyAsync(() -> {
            try {
                Instant at = clock.instant();
                Forecast made = maker.make(forecaster, runTimes.lookup(p, at.toEpochMilli()), at).orElse(null);
                if (made != null) {
                    last.put(p, made);
                }
                return made;
            } catch (RuntimeException e) {
                log.warn("forecasting pool {} failed; its tasks show no estimate until a forecast succeeds", p, e);
                return null;
            } finally {
                making.remove(p);
            }
        }, thread));
        if (known != null) {
            return known;
        }
        try {
            return next.get(FIRST_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            return null;
        }
    }

    /** The estimate of one waiting task: from the pool's forecast, or why there is none. */
    Forecast.Estimate estimate(String pool, String taskId, Maker maker) {
        Forecast forecast = of(pool, maker);
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
