package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.testkit.KafkaBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * A tiny {@code cronoq bench} end to end, on the embedded broker with one tenant and on an external one with ten
 * (their sharing policy taken in before each phase): every phase runs and the JSON line carries every figure. It
 * checks that the instrument works, never how fast anything is, so its drains and rates are as small as still tell
 * a warm-up from the measured part.
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BenchRunTest {

    /** The test JVM's broker, as the external Kafka of {@code --bootstrap}. */
    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @Test
    void aSmallRunReportsEveryFigureAndItsRatioToTheBaselineAsOneJsonLine() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = BenchCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));

        int code = cli.execute("--pools", "2", "--groups", "1", "--workers", "4", "--slots", "4", "--partitions", "2",
                "--drain", "100", "--warmup-drain", "0", "--rate", "50", "--warmup", "1", "--duration", "1", "--backlog", "500",
                "--warmup-at-rate", "1", "--jit-wait", "1", "--baseline-records", "400", "--retention-ms", "500", "--json");

        assertThat(code).as("exit code; stderr: " + err).isZero();
        String[] lines = out.toString().strip().split("\n");
        assertThat(lines).as("one JSON line on stdout").hasSize(1);
        JsonNode json = new ObjectMapper().readTree(lines[0]);
        assertThat(json.get("lifecycle_ratio").asDouble()).isPositive();
        assertThat(json.get("placement_ratio").asDouble()).isPositive();
        assertThat(json.get("drain").get("tasks").asLong()).isEqualTo(100);
        assertThat(json.get("drain").get("lifecyclePerSecond").asDouble()).isPositive();
        assertThat(json.get("drain").get("cpuMsPerTaskByPart").get("stream threads").asDouble()).isPositive();
        // /proc counts thread CPU in 10 ms ticks: 300 baseline records may take less than one.
        assertThat(json.get("baseline_drain").get("cpuMsPerRecordByPart").get("stream threads").isNumber()).isTrue();
        assertThat(json.get("baseline_drain").get("cpuMsPerRecordByPart").get("stream threads").asDouble())
                .isNotNegative();
        assertThat(json.get("baseline_drain").get("records").asLong()).as("its own size").isEqualTo(400);
        assertThat(json.get("settings").get("retentionMs").asLong()).isEqualTo(500);
        assertThat(json.get("fleet").asText()).contains("held back 20 ms");
        assertThat(json.get("slots").asLong()).isEqualTo(16);
        assertThat(json.get("bytes_per_task").asDouble()).isPositive();
        assertThat(json.get("bytes_per_baseline_record").asDouble()).isPositive();
        assertThat(json.get("bytes_ratio").asDouble()).isPositive();
        assertThat(json.get("log_entries_ratio").asDouble()).isPositive();
        assertThat(json.get("cpu_per_task_ratio").asDouble()).isPositive();
        assertThat(json.get("rate").get("latency").get("count").asLong()).as("the measured second's, not the warm-up's")
                .isEqualTo(50);
        assertThat(json.get("baseline_rate").get("latency").get("p99").asDouble()).isPositive();
        assertThat(json.get("rate").get("coresBusy").asDouble()).as("the whole JVM's, broker included").isPositive();
        JsonNode hops = json.get("rate").get("hops");
        assertThat(hops.get("tasks").asInt()).as("every measured task acknowledged and assigned").isEqualTo(50);
        assertThat(hops.get("split").asBoolean()).as("the assignments stamped at append").isTrue();
        assertThat(hops.get("percentiles").get("COMMITTED_AND_READ").get("p50").asDouble()).isPositive();
        assertThat(json.get("baseline_rate").get("coresBusy").asDouble()).isPositive();
        assertThat(json.get("p99_ratio").asDouble()).isPositive();
        assertThat(json.get("backlog_rate").get("latency").get("count").asLong()).isEqualTo(50);
        assertThat(json.get("memory_backlog").get("waiting").asLong()).isEqualTo(500);
        assertThat(json.get("memory_backlog").get("heapUsedAfterGc").asLong()).isPositive();
        assertThat(json.get("record_size_bytes").asInt()).isPositive();
        assertThat(json.get("log_entries").get("drain, per task")).isNotNull();
        assertThat(json.get("settings").get("warmupAtRateS").asInt()).isEqualTo(1);
        assertThat(err.toString()).contains("Drain:", "Warm-up at the rate: 50 tasks/s for 1 s, unmeasured",
                "JVM warm-up: the JIT", "Rate: the JIT",
                "Baseline:", "Backlog: taken in");
    }

    @Test
    void realWorkerAgentsCanStandForTheSimulatedOnesOnAnExternalBrokerWithTenTenants() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = BenchCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));

        int code = cli.execute("--agents", "--tenants", "10", "--bootstrap", broker.bootstrapServers(), "--pools", "1",
                "--groups", "1", "--workers", "2", "--slots", "2", "--partitions", "2", "--drain", "40",
                "--warmup-drain", "0", "--rate", "20", "--warmup", "0", "--duration", "1", "--backlog", "20",
                "--warmup-at-rate", "0", "--jit-wait", "0", "--no-baseline", "--json");

        assertThat(code).as("exit code; stderr: " + err).isZero();
        JsonNode json = new ObjectMapper().readTree(out.toString().strip());
        assertThat(json.get("fleet").asText()).contains("agents");
        assertThat(json.get("drain").get("tasks").asLong()).isEqualTo(40);
        assertThat(json.get("drain").get("placementsPerSecond").asDouble()).isPositive();
        assertThat(json.get("drain").get("lifecyclePerSecond").asDouble()).isPositive();
        assertThat(json.get("drain").get("cpuMsPerTaskByPart").get("the workers' threads (simulated or agents)")
                .asDouble()).isNotNegative();
        assertThat(json.get("rate").get("latency").get("count").asLong()).as("measured at the handler's call")
                .isEqualTo(20);
        assertThat(json.get("backlog_rate").get("latency").get("count").asLong()).isEqualTo(20);
        assertThat(json.get("tenants").asInt()).isEqualTo(10);
        assertThat(json.get("rate").get("hops").isNull()).as("agents tell no hops").isTrue();
        assertThat(err.toString()).contains("Drain: the sharing policy of 10 tenants (10 changes) sent",
                "Drain: the sharing policy taken in", "Rate: the sharing policy of 10 tenants taken in")
                .doesNotContain("Warm-up at the rate").doesNotContain("the JIT");
    }
}
