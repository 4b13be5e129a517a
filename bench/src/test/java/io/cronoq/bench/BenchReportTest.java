package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report says what the fleet allows and sets each cost per task beside a baseline record's, in text and in JSON. */
class BenchReportTest {

    private static BenchSettings settings(int workers, int slots, Long retentionMs, boolean agents) {
        return settings(workers, slots, retentionMs, agents, 1);
    }

    private static BenchSettings settings(int workers, int slots, Long retentionMs, boolean agents, int tenants) {
        return new BenchSettings(2, 2, workers, slots, 0, 10_000, 0, 1, 0, 0, 0, 5, 2, 0, 20, 6, null, null, false, true, 300_000,
                retentionMs, agents, agents ? 0 : 20, false, tenants, false, Map.of());
    }

    private static BenchReport report(BenchSettings settings, double tasksPerSecond) {
        BenchReport.Drain drain = new BenchReport.Drain(10_000, tasksPerSecond * 1.01, tasksPerSecond,
                10_000 / tasksPerSecond, 0.35, Map.of("stream threads", 0.11), 4_000, 5_000);
        Baseline.DrainResult baseline = new Baseline.DrainResult(300_000, 6.0, 50_000, 0.021,
                Map.of("stream threads", 0.007), Map.of(), 48_000, 51_000);
        Map<String, Map<String, Double>> entries = new LinkedHashMap<>();
        entries.put(BenchReport.DRAIN_PER_TASK, Map.of("journal", 6.0, "submissions", 1.0, "assignments", 1.0));
        entries.put(BenchReport.BASELINE_PER_RECORD, Map.of("-drain-in", 1.0, "-drain-out", 1.0));
        Map<String, Map<String, Double>> bytes = new LinkedHashMap<>();
        bytes.put(BenchReport.DRAIN_PER_TASK, Map.of("journal", 600.0, "submissions", 120.0, "assignments", 80.0));
        bytes.put(BenchReport.BASELINE_PER_RECORD, Map.of("-drain-in", 100.0, "-drain-out", 100.0));
        return new BenchReport(settings, "the bench JVM", 72, new double[] {1, 1, 1}, new double[] {1, 1, 1}, drain,
                baseline, null, null, null, null, null, Map.of(), entries, bytes);
    }

    private static String printed(BenchReport report) {
        StringWriter text = new StringWriter();
        report.print(new PrintWriter(text, true));
        return text.toString();
    }

    @Test
    void theHeaderSaysHowManySlotsThereAreAndWhatTheyAllow() {
        String text = printed(report(settings(64, 32, null, false), 4_500));
        assertThat(text).contains("64 simulated workers (AttemptStarted held back 20 ms) x 32 slots")
                .contains("2,048 slots: at about 25 ms per task and slot")
                .contains("about 81,920 tasks/s")
                .contains("slots in use")
                .doesNotContain("the fleet may be the limit")
                .doesNotContain("forgotten");
    }

    @Test
    void theHeaderSaysHowTheJvmWasWarmedUpAndThatMeasuredPartsWaitForTheJit() {
        BenchSettings warmed = new BenchSettings(2, 2, 64, 32, 0, 10_000, 100_000, 2, 60, 120, 5_000, 60, 10, 0, 20, 6,
                null, null, false, true, 300_000, null, false, 20, false, 1, false, Map.of());
        assertThat(printed(report(warmed, 4_500)))
                .contains("the embedded broker's logs and the state stores under " + warmed.dataPlace())
                .contains("JVM warmed up first, unmeasured and on topics of their own, by 2 drains of 50,000 tasks, "
                        + "then 60 s at 5,000 tasks/s")
                .contains("before each measured part, up to 120 s of waiting for the JIT to go quiet");
        assertThat(printed(report(settings(64, 32, null, false), 4_500)))
                .doesNotContain("JVM warmed up").doesNotContain("waiting for the JIT");
    }

    @Test
    void aDrainNearWhatTheSlotsAllowIsFlagged() {
        String text = printed(report(settings(32, 16, null, false), 19_000));
        assertThat(text).contains("512 slots").contains("about 20,480 tasks/s")
                .contains("the fleet may be the limit; give more --workers or --slots");
    }

    @Test
    void everyCostPerTaskStandsBesideABaselineRecordsAndItsMultiple() {
        String text = printed(report(settings(64, 32, null, false), 4_500));
        assertThat(text).contains("0.350 ms per task, 0.021 ms per baseline record (16.7 x)")
                .contains("log entries written")
                .contains("8.0 per task, 2.0 per baseline record (4.0 x)")
                .contains("bytes written")
                .contains("800 per task, 200 per baseline record (4.0 x)")
                .contains("a drain of 300,000 records")
                .contains("48,000 records/s in the first tenth, 51,000 in the last")
                .contains("Bytes written (drain, per task; the logs' size on disk, one replica), total 800:");
    }

    @Test
    void aRetentionShorterThanTheDrainIsSaidToIncludeTheForgetting() {
        String text = printed(report(settings(64, 32, 500L, false), 4_500));
        assertThat(text).contains("finished tasks forgotten 500 ms after they finish")
                .contains("shorter than the drain: it includes forgetting the tasks it finished first");
        String longer = printed(report(settings(64, 32, 60_000L, false), 4_500));
        assertThat(longer).contains("longer than the drain: no task was forgotten in it");
    }

    @Test
    void agentsAreNamedAsTheFleet() {
        assertThat(printed(report(settings(64, 32, null, true), 4_500)))
                .contains("64 worker agents (CronoqWorker, in the bench JVM) x 32 slots");
    }

    @Test
    void theJsonLineCarriesTheNewFigures() throws Exception {
        JsonNode json = new ObjectMapper().readTree(report(settings(64, 32, 500L, false), 4_500).toJson());
        assertThat(json.get("slots").asLong()).isEqualTo(2_048);
        assertThat(json.get("slot_cap_tasks_per_second").asDouble()).isEqualTo(81_920.0);
        assertThat(json.get("slot_cap_share").asDouble()).isCloseTo(4_500 / 81_920.0, within(1e-9));
        assertThat(json.get("cpu_per_task_ratio").asDouble()).isCloseTo(0.35 / 0.021, within(1e-9));
        assertThat(json.get("bytes_per_task").asDouble()).isEqualTo(800.0);
        assertThat(json.get("bytes_per_baseline_record").asDouble()).isEqualTo(200.0);
        assertThat(json.get("bytes_ratio").asDouble()).isEqualTo(4.0);
        assertThat(json.get("log_entries_per_task").asDouble()).isEqualTo(8.0);
        assertThat(json.get("log_entries_ratio").asDouble()).isEqualTo(4.0);
        assertThat(json.get("bytes_written").get(BenchReport.DRAIN_PER_TASK).get("journal").asDouble()).isEqualTo(600.0);
        assertThat(json.get("baseline_drain").get("lastTenthPerSecond").asDouble()).isEqualTo(51_000.0);
        assertThat(json.get("settings").get("retentionMs").asLong()).isEqualTo(500);
        assertThat(json.get("settings").get("baselineRecords").asLong()).isEqualTo(300_000);
        assertThat(json.get("fleet").asText()).contains("simulated");
    }

    @Test
    void theReportSaysHowManyTenantsTheTasksRanFor() throws Exception {
        assertThat(printed(report(settings(64, 32, null, false), 4_500)))
                .contains("1 tenant: the tasks name none and no sharing policy is set");
        BenchReport shared = report(settings(64, 32, null, false, 100), 4_500);
        assertThat(printed(shared)).contains("100 tenants share each pool (task k runs for bench-tenant-<k mod 100>)")
                .contains("in the first pool (1,024 slots) 10 guaranteed 51 slot(s) each, 10 bounded");
        JsonNode json = new ObjectMapper().readTree(shared.toJson());
        assertThat(json.get("tenants").asInt()).isEqualTo(100);
        assertThat(json.get("settings").get("tenants").asInt()).isEqualTo(100);
    }

    @Test
    void aRateSaysHowLateTheLoadGeneratorWentAndHowManyGcPausesFellInItsMeasuredSeconds() throws Exception {
        Latency.Summary latency = new Latency.Summary(300_000, 23.0, 38.0, 55.0, 120.0, 61, 0, 20, Map.of(),
                "2026-12-06T21:00:00Z", java.util.List.of(50.0, 55.0));
        BenchReport.Rate rate = new BenchReport.Rate(5_000, latency, 5_000, 5_000, 0, 3.2, 12.4, 1.1,
                new GcPauses.Summary(12, 290, 51, 4), null);
        Baseline.RateResult baseline = new Baseline.RateResult(5_000, latency, 5_000, Map.of(), 0.7,
                new GcPauses.Summary(9, 120, 22, 1));
        BenchReport report = new BenchReport(settings(64, 32, null, false), "the bench JVM", 72, new double[] {1, 1, 1},
                new double[] {1, 1, 1}, null, null, rate, baseline, null, null, null, Map.of(), Map.of(), Map.of());

        assertThat(printed(report)).contains("p99 of each 10 s from 2026-12-06T21:00:00Z: 50, 55 ms");
        assertThat(printed(report)).contains("the load generator           at most 3.2 ms late sending a task "
                + "(12 s into the measured seconds)");
        assertThat(printed(report)).contains("GC pauses                    12 in the measured seconds, 290 ms in all, "
                + "the longest 51 ms, 4 over 20 ms (the baseline's: 9 in the measured seconds, 120 ms in all, "
                + "the longest 22 ms, 1 over 20 ms)");
        JsonNode json = new ObjectMapper().readTree(report.toJson());
        assertThat(json.get("rate").get("gcPauses").get("longestMs").asDouble()).isEqualTo(51.0);
        assertThat(json.get("baseline_rate").get("gcPauses").get("overGoal").asInt()).isEqualTo(1);
    }

    @Test
    void aRateSaysWhereTheTimeOfItsTasksWentHopByHop() throws Exception {
        Latency.Summary latency = new Latency.Summary(100, 23.0, 38.0, 55.0, 120.0, 61, 0, 20, Map.of(),
                "2026-12-06T21:00:00Z", java.util.List.of(50.0, 55.0));
        Hops hops = new Hops(0, 100, Long::parseLong, 0);
        for (int k = 0; k < 100; k++) {
            long due = 1_000_000_000L + k * 1_000_000L;
            hops.acked(k, due + 2_000_000);
            long decidedMs = due / 1_000_000 + (k == 99 ? 902 : 7);
            hops.heard(String.valueOf(k), decidedMs);
            hops.assigned(String.valueOf(k), due, decidedMs + 4, decidedMs * 1_000_000 + 20_000_000);
        }
        BenchReport.Rate rate = new BenchReport.Rate(5_000, latency, 5_000, 5_000, 0, 3.2, 12.4, 1.1, null,
                hops.summary());
        BenchReport report = new BenchReport(settings(64, 32, null, false), "the bench JVM", 72, new double[] {1, 1, 1},
                new double[] {1, 1, 1}, null, null, rate, null, null, null, null, Map.of(), Map.of(), Map.of());

        assertThat(printed(report))
                .contains("where the time went          sent                     p50 2.0 ms, p99 2.0 ms, max 2.0 ms")
                .contains("into the scheduler       p50 5.0 ms, p99 5.0 ms, max 900.0 ms")
                .contains("out to the log           p50 4.0 ms, p99 4.0 ms, max 4.0 ms")
                .contains("committed and read       p50 16.0 ms, p99 16.0 ms, max 16.0 ms")
                .contains("the slowest 1% (>= 922 ms)   on average sent 2.0, into the scheduler 900.0, out to the log 4.0, "
                        + "committed and read 16.0 ms")
                .contains("the slowest task             922.0 ms, due 1970-01-01T00:00:01.099Z: sent 2.0, into the "
                        + "scheduler 900.0, out to the log 4.0, committed and read 16.0 ms");
        JsonNode json = new ObjectMapper().readTree(report.toJson());
        assertThat(json.get("rate").get("hops").get("percentiles").get("INTO_SCHEDULER").get("max").asDouble())
                .isEqualTo(900.0);
        assertThat(json.get("rate").get("hops").get("slowestMs").asDouble()).isEqualTo(922.0);
    }
}
