package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.forecast.Forecast;
import io.cronoq.scheduler.policy.forecast.Forecast.Estimate;
import io.cronoq.scheduler.policy.forecast.Forecaster;
import io.cronoq.scheduler.policy.forecast.RunTimes;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.schemas.events.Journal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Start estimates against hand-computed cases: with known run times the futures agree, and are exact. */
class ForecastTest {

    private final InMemoryPoolStore store = new InMemoryPoolStore();
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store);
    private final RunTimes runTimes = new RunTimes();
    private final Forecaster forecaster = new Forecaster(TimeRules.DEFAULT, Forecaster.Settings.DEFAULT);

    @Test
    void oneSlotAndKnownRunTimesGiveExactStartsInLineOrder() {
        scheduler.apply(In.worker("w1", 1), T0);
        for (String id : new String[] {"a", "b", "c", "d"}) {
            scheduler.apply(untimed(id), T0);
        }
        learn("", "default", 60_000, 20);

        Forecast forecast = forecast(T0.plusSeconds(10));

        // a runs since T0 for 60 s; then b, c and d one after the other, 60 s each.
        assertExact(forecast.estimate("b"), T0.plusSeconds(60), 0);
        assertExact(forecast.estimate("c"), T0.plusSeconds(120), 1);
        assertExact(forecast.estimate("d"), T0.plusSeconds(180), 2);
        assertThat(forecast.estimate("a")).as("a runs: it waits no more").isNull();
        assertThat(forecast.estimate("c").reason())
                .isEqualTo("1 ahead on unlabeled workers; tasks of its class and tenant ran 1m–1m lately (20 runs)");
    }

    @Test
    void aForecastChangesNothingItReadsSoTheSameStateGivesTheSameForecast() {
        scheduler.apply(In.worker("w1", 2), T0);
        scheduler.apply(In.worker("w2", 1, "gpu=a100"), T0);
        for (int i = 0; i < 40; i++) {
            scheduler.apply(untimed("t" + i, i % 3 == 0 ? new String[] {"gpu=a100"} : new String[0]), T0);
        }
        for (int i = 0; i < 30; i++) {
            runTimes.observe(POOL, i % 2 == 0 ? "" : "gpu=a100", "default", 1_000 + i * 997L, T0.toEpochMilli());
        }
        java.util.Map<String, io.cronoq.events.TaskRecord> before = new java.util.HashMap<>();
        store.taskIds().forEach(id -> before.put(id, io.cronoq.events.TaskRecord.newBuilder(store.task(id)).build()));

        Forecast first = forecast(T0.plusSeconds(5));
        Forecast second = forecast(T0.plusSeconds(5));

        assertThat(second.estimates()).isEqualTo(first.estimates());
        store.taskIds().forEach(id -> assertThat(store.task(id)).as(id).isEqualTo(before.get(id)));
    }

    @Test
    void aGangIsEstimatedToStartWhenEnoughSlotsAreFreeAtOnce() {
        scheduler.apply(In.worker("w1", 2), T0);
        scheduler.apply(In.worker("w2", 2), T0);
        for (String id : new String[] {"a", "b", "c"}) {
            scheduler.apply(untimed(id), T0);
        }
        scheduler.apply(GangsTest.gang("g", 3, io.cronoq.events.GangPlacement.ANY, null), T0);
        learn("", "default", 60_000, 10);

        Forecast forecast = forecast(T0.plusSeconds(1));

        // One slot is free now, the other three at 60 s, when a, b and c end: the gang starts whole then.
        for (int rank = 0; rank < 3; rank++) {
            Estimate member = forecast.estimate("g-" + rank);
            assertThat(member.p10()).as("member %d: %s", rank, member).isEqualTo(T0.plusSeconds(60));
            assertThat(member.p90()).isEqualTo(T0.plusSeconds(60));
        }
    }

    @Test
    void twoSlotsShareTheLine() {
        scheduler.apply(In.worker("w1", 2), T0);
        for (String id : new String[] {"a", "b", "c", "d", "e"}) {
            scheduler.apply(untimed(id), T0);
        }
        learn("", "default", 30_000, 10);

        Forecast forecast = forecast(T0);

        // a and b run from T0; c and d take their slots at 30 s, e at 60 s.
        assertExact(forecast.estimate("c"), T0.plusSeconds(30), 0);
        assertExact(forecast.estimate("d"), T0.plusSeconds(30), 1);
        assertExact(forecast.estimate("e"), T0.plusSeconds(60), 2);
    }

    @Test
    void aTenantBehindAnotherTenantsLongLineWinsItsShare() {
        scheduler.apply(In.worker("w1", 2), T0);
        for (int i = 0; i < 10; i++) {
            scheduler.apply(tenantTask("a" + i, "alpha"), T0);
        }
        scheduler.apply(tenantTask("b0", "beta"), T0.plusSeconds(1));
        learn("", "alpha", 10_000, 10);
        learn("", "beta", 10_000, 10);

        Forecast forecast = forecast(T0.plusSeconds(1));

        // a0 and a1 run until 10 s; then beta, holding nothing, takes the first slot that frees, not the
        // eighth: a line's length is not a task's position. alpha's a2 takes the other slot, then two a second.
        assertExact(forecast.estimate("b0"), T0.plusSeconds(10), 0);
        assertExact(forecast.estimate("a9"), T0.plusSeconds(50), 8);
    }

    @Test
    void aDeclaredTimeoutStandsInWhenNoRunWasSeen() {
        scheduler.apply(In.worker("w1", 1), T0);
        scheduler.apply(timed("a", 120_000), T0);
        scheduler.apply(timed("b", 120_000), T0);

        Forecast forecast = forecast(T0);

        assertExact(forecast.estimate("b"), T0.plusSeconds(120), 0);
        assertThat(forecast.estimate("b").reason()).endsWith("run times taken at the declared timeouts");
    }

    @Test
    void whatRunTimesRestOnIsSaidOfEachTasksOwnTimeoutWhenNothingWasLearned() {
        scheduler.apply(In.worker("w1", 1), T0);
        scheduler.apply(timed("a", 120_000), T0);
        scheduler.apply(timed("b", 120_000), T0);
        scheduler.apply(untimed("c"), T0); // the same class and tenant as b, no timeout of its own

        Forecast forecast = forecast(T0);

        assertThat(forecast.estimate("b").reason()).endsWith("run times taken at the declared timeouts");
        assertThat(forecast.estimate("c").reason()).endsWith("run times unknown");
    }

    @Test
    void withNothingToGoOnItSaysSoInsteadOfGuessing() {
        scheduler.apply(In.worker("w1", 1), T0);
        scheduler.apply(untimed("a"), T0);
        scheduler.apply(untimed("b"), T0);

        Estimate b = forecast(T0).estimate("b");

        assertThat(b.known()).isFalse();
        assertThat(b.reason()).startsWith("no attempt in this pool has ended yet to learn run times from");
    }

    @Test
    void aTaskNoWorkerCanRunHasNoEstimateAndSaysWhy() {
        scheduler.apply(In.worker("w1", 1), T0);
        scheduler.apply(untimed("a", "gpu=a100"), T0);
        learn("", "default", 1_000, 10);

        Estimate a = forecast(T0).estimate("a");

        assertThat(a.known()).isFalse();
        assertThat(a.reason()).startsWith("no worker of the fleet as it is will take it");
    }

    @Test
    void aDelayedTaskStartsNoEarlierThanItMay() {
        scheduler.apply(In.worker("w1", 1), T0);
        TaskSubmitted later = untimed("later");
        later.setNotBefore(T0.plusSeconds(300));
        scheduler.apply(later, T0);
        learn("", "default", 1_000, 10);

        assertExact(forecast(T0).estimate("later"), T0.plusSeconds(300), 0);
    }

    @Test
    void anotherTenantsSteadyArrivalsTakeTheirShareAhead() {
        scheduler.apply(In.worker("w1", 2), T0);
        for (int i = 0; i < 6; i++) {
            TaskSubmitted a = tenantTask("a" + i, "alpha");
            a.setSubmittedAt(T0.plusSeconds(3_600));
            scheduler.apply(a, T0.plusSeconds(3_600));
        }
        learn("", "alpha", 10_000, 10);
        learn("", "beta", 10_000, 10);
        Instant now = T0.plusSeconds(3_600);
        Estimate alone = forecaster.forecast(POOL, store, runTimes.lookup(POOL, now.toEpochMilli()), now).estimate("a5");
        // beta submitted six tasks a minute for the last hour: they keep coming, and beta, holding less, wins slots.
        for (int m = 0; m < 60; m++) {
            for (int i = 0; i < 6; i++) {
                TaskSubmitted b = tenantTask("b" + m + "-" + i, "beta");
                runTimes.record(Journal.entry(POOL, T0.plusSeconds(m * 60L + i * 10L), b, "test"));
            }
        }
        Estimate crowded = forecaster.forecast(POOL, store, runTimes.lookup(POOL, now.toEpochMilli()), now).estimate("a5");

        // Alone: a0 and a1 run until 10 s, a2 and a3 until 20 s; then a4 and a5.
        assertExact(alone, now.plusSeconds(20), 3);
        assertThat(crowded.p50()).as("beta's arrivals start before a5").isAfter(alone.p50());
        assertThat(crowded.position()).isGreaterThan(3);
    }

    @Test
    void burstsThatKeptACadenceComeWhenDueAndTakeTheirShare() {
        scheduler.apply(In.worker("w1", 2), T0);
        Instant now = T0.plusSeconds(4_195);
        for (int i = 0; i < 4; i++) {
            TaskSubmitted a = tenantTask("a" + i, "alpha");
            a.setSubmittedAt(now);
            scheduler.apply(a, now);
        }
        learn("", "alpha", 10_000, 10);
        learn("", "beta", 10_000, 10);
        Estimate alone = forecaster.forecast(POOL, store, runTimes.lookup(POOL, now.toEpochMilli()), now).estimate("a3");
        // beta submitted ten tasks at once every quarter hour (seconds 600, 1500, 2400, 3300): the next ten are due at 4200.
        runTimes.record(Journal.entry(POOL, T0, tenantTask("b-first", "beta"), "test"));
        for (long burst = 600; burst < 4_200; burst += 900) {
            for (int i = 0; i < 10; i++) {
                runTimes.record(Journal.entry(POOL, T0.plusSeconds(burst),
                        tenantTask("b" + burst + "-" + i, "beta"), "test"));
            }
        }
        Estimate crowded = forecaster.forecast(POOL, store, runTimes.lookup(POOL, now.toEpochMilli()), now).estimate("a3");

        // Alone: a0 and a1 run until 4205, then a2 and a3 start. With the burst due at 4200: at 4205 a0 ends
        // first and beta, holding nothing against alpha's one, takes its slot; a1 ends and a2 takes it. At 4215
        // beta's task ends first and beta takes its slot again (alpha holds a2); a2 ends and a3 takes its slot.
        // So three are placed ahead of a3, in every future.
        assertExact(alone, now.plusSeconds(10), 1);
        assertExact(crowded, now.plusSeconds(20), 3);
    }

    @Test
    void aHugeBurstBehindALineCopiedShortCostsTheFuturesNothing() {
        scheduler.apply(In.worker("w1", 1), T0);
        Instant now = T0.plusSeconds(61 * 60 - 5);
        for (int i = 0; i < 300; i++) {
            TaskSubmitted a = tenantTask("a" + i, "alpha");
            a.setSubmittedAt(now);
            scheduler.apply(a, now);
        }
        learn("", "alpha", 10_000, 10);
        // alpha submitted 100,000 more at minutes 1, 16, 31 and 46: the next 100,000 are due in 5 s, into the same
        // line, behind its 300 (of which the forecast copies 100).
        for (int minute = 1; minute < 60; minute += 15) {
            for (int i = 0; i < 100_000; i++) {
                runTimes.record(Journal.entry(POOL, T0.plusSeconds(minute * 60L),
                        tenantTask("burst-" + minute + "-" + i, "alpha"), "test"));
            }
        }
        Forecaster shortCopy = new Forecaster(TimeRules.DEFAULT, new Forecaster.Settings(19, 100, 200_000,
                Forecaster.Settings.DEFAULT.horizonMs(), 2_000));

        Forecast forecast = shortCopy.forecast(POOL, store, runTimes.lookup(POOL, now.toEpochMilli()), now);

        // The burst waits behind the line's uncopied part, so no future adds it: each runs the line as before.
        assertExact(forecast.estimate("a2"), now.plusSeconds(20), 1);
        assertExact(forecast.estimate("a99"), now.plusSeconds(990), 98);
    }

    /**
     * Property: over random pools (workers of two kinds, tenants, delayed tasks, tasks no worker can run,
     * attempts already running), no estimate claims a start before the task could start — before now,
     * before its not-before time — and p10 ≤ p50 ≤ p90; a task no worker can run is never given one.
     */
    @Test
    void estimatesNeverClaimAStartBeforeTheTaskCouldStart() {
        for (int variant = 1; variant <= 40; variant++) {
            java.util.SplittableRandom random = new java.util.SplittableRandom(variant);
            InMemoryPoolStore pool = new InMemoryPoolStore();
            PoolScheduler s = new PoolScheduler(POOL, pool);
            RunTimes seen = new RunTimes();
            s.apply(In.worker("cpu", 1 + random.nextInt(4)), T0);
            s.apply(In.worker("gpu", 1 + random.nextInt(2), "gpu=a100"), T0);
            for (int i = 0; i < 60; i++) {
                String[] labels = switch (random.nextInt(6)) {
                    case 0 -> new String[] {"gpu=a100"};
                    case 1 -> new String[] {"gpu=h100"}; // no worker has it
                    default -> new String[0];
                };
                TaskSubmitted task = tenantTask("t" + i, random.nextBoolean() ? "alpha" : "beta");
                task.setLabels(In.labels(labels));
                if (random.nextInt(4) == 0) {
                    task.setNotBefore(T0.plusSeconds(random.nextInt(600)));
                }
                s.apply(task, T0.plusMillis(i));
            }
            for (int i = 0; i < 30; i++) {
                seen.observe(POOL, random.nextBoolean() ? "" : "gpu=a100", random.nextBoolean() ? "alpha" : "beta",
                        1_000 + random.nextInt(120_000), T0.toEpochMilli());
            }
            Instant now = T0.plusSeconds(random.nextInt(30));
            Forecast forecast = forecaster.forecast(POOL, pool, seen.lookup(POOL), now);
            assertThat(forecast.estimates().values().stream().filter(Estimate::known).count())
                    .as("variant %d gives starts to check", variant).isPositive();
            for (String id : pool.taskIds()) {
                var record = pool.task(id);
                Estimate e = forecast.estimate(id);
                if (record.getState() != io.cronoq.events.TaskState.WAITING) {
                    continue;
                }
                assertThat(e).as("every waiting task is estimated (variant %d, %s)", variant, id).isNotNull();
                if (record.getTask().getLabels().containsKey("gpu")
                        && record.getTask().getLabels().get("gpu").equals("h100")) {
                    assertThat(e.known()).as("no worker can run %s", id).isFalse();
                    continue;
                }
                if (!e.known()) {
                    continue;
                }
                Instant earliest = record.getTask().getNotBefore() == null || record.getTask().getNotBefore().isBefore(now)
                        ? now : record.getTask().getNotBefore();
                assertThat(e.p10()).as("p10 of %s (variant %d)", id, variant).isAfterOrEqualTo(earliest);
                assertThat(e.p50()).isAfterOrEqualTo(e.p10());
                if (e.p90() != null) {
                    assertThat(e.p90()).isAfterOrEqualTo(e.p50());
                }
            }
        }
    }

    private Forecast forecast(Instant now) {
        return forecaster.forecast(POOL, store, runTimes.lookup(POOL), now);
    }

    /** {@code count} runs of {@code ms} each of the class {@code classKey} and {@code tenant}, ended at T0. */
    private void learn(String classKey, String tenant, long ms, int count) {
        for (int i = 0; i < count; i++) {
            runTimes.observe(POOL, classKey, tenant, ms, T0.toEpochMilli());
        }
    }

    private static void assertExact(Estimate e, Instant start, long position) {
        assertThat(e).isNotNull();
        assertThat(e.p10()).as("p10 of %s", e).isEqualTo(start);
        assertThat(e.p50()).as("p50 of %s", e).isEqualTo(start);
        assertThat(e.p90()).as("p90 of %s", e).isEqualTo(start);
        assertThat(e.position()).as("position of %s", e).isEqualTo(position);
    }

    private static TaskSubmitted untimed(String id, String... labels) {
        TaskSubmitted task = In.task(id, labels);
        task.setTimeoutMs(null);
        assertThat(Requirement.keyOf(task)).isEqualTo(String.join(",", labels));
        return task;
    }

    private static TaskSubmitted timed(String id, long timeoutMs) {
        TaskSubmitted task = In.task(id);
        task.setTimeoutMs(timeoutMs);
        return task;
    }

    private static TaskSubmitted tenantTask(String id, String tenant) {
        return In.tenantTask(id, tenant);
    }
}
