package io.cronoq.scheduler.policy.bench;

import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.forecast.Forecast;
import io.cronoq.scheduler.policy.forecast.Forecaster;
import io.cronoq.scheduler.policy.forecast.RunTimes;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What start estimates cost, off the decision path: making one forecast of a pool (two tenants, a GPU
 * and a CPU class each, 400 slots busy, {@code backlog} tasks waiting), and answering one task's
 * estimate from the last forecast (a store read and a map lookup: what a query adds). Run:
 * {@code ./mvnw -pl scheduler-streams test-compile exec:exec@bench -Dbench.args="ForecastBenchmark"} (the
 * runner of {@code PlacementBenchmark}, its arguments naming this one).
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 2)
public class ForecastBenchmark {

    private static final String POOL = "bench";
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");
    private static final Map<String, String> GPU = Map.of("gpu", "a100");

    @Param({"10000", "1000000"})
    public int backlog;

    private InMemoryPoolStore store;
    private RunTimes runTimes;
    private Forecaster forecaster;
    private Forecast last;
    private String[] waiting;
    private final SplittableRandom random = new SplittableRandom(7);

    @Setup(Level.Trial)
    public void setUp() {
        store = new InMemoryPoolStore();
        PoolScheduler scheduler = new PoolScheduler(POOL, store);
        for (int w = 0; w < 80; w++) {
            scheduler.apply(new WorkerRegistered("cpu-" + w, POOL, Map.of(), 4, null, null, null, null, AT), AT);
        }
        for (int w = 0; w < 20; w++) {
            scheduler.apply(new WorkerRegistered("gpu-" + w, POOL, GPU, 4, null, null, null, null, AT), AT);
        }
        int total = 400 + backlog;
        waiting = new String[backlog];
        int w = 0;
        for (int i = 0; i < total; i++) {
            boolean gpu = i % 5 == 0;
            String tenant = i % 2 == 0 ? "research" : "prod";
            TaskSubmitted t = TaskSubmitted.newBuilder().setTaskId("t" + i).setPool(POOL)
                    .setLabels(gpu ? GPU : Map.of()).setTenant(tenant).setSubmittedAt(AT).build();
            scheduler.apply(t, AT);
            if (i >= 400 + 100 && w < backlog) {
                waiting[w++] = "t" + i;
            }
        }
        waiting = Arrays.copyOf(waiting, w);
        runTimes = new RunTimes();
        for (int i = 0; i < 2_000; i++) {
            long ms = Math.round(30_000 * Math.exp(0.8 * random.nextGaussian()));
            runTimes.observe(POOL, i % 5 == 0 ? "gpu=a100" : "", i % 2 == 0 ? "research" : "prod", ms,
                    AT.toEpochMilli());
        }
        forecaster = new Forecaster(TimeRules.DEFAULT, Forecaster.Settings.DEFAULT);
        last = forecaster.forecast(POOL, store, runTimes.lookup(POOL), AT.plusSeconds(10));
    }

    /** Makes one forecast: what the gateway does at most once a second per pool someone asks about. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 1)
    @Measurement(iterations = 5)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Forecast forecast() {
        return forecaster.forecast(POOL, store, runTimes.lookup(POOL), AT.plusSeconds(10));
    }

    /** Answers one waiting task's estimate from the last forecast, its record read beside it. */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object estimate() {
        String id = waiting[random.nextInt(waiting.length)];
        return store.task(id) != null ? last.estimate(id) : null;
    }
}
