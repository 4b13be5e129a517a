package io.cronoq.ops.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.agent.CronoqWorker;
import io.cronoq.gateway.GatewayServer;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.ops.Cronoq;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.testkit.KafkaBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** submit, gangs, status, cancel, snapshot and workers against a real gateway, as a user types them. */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HttpCommandsTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "cli";
    private static RunningScheduler scheduler;
    private static GatewayServer gateway;
    private static CronoqWorker worker;

    @BeforeAll
    static void start() throws Exception {
        scheduler = RunningScheduler.on(broker).name("cli").partitions(2).start();
        gateway = GatewayServer.start(scheduler.app(), 0);
        worker = CronoqWorker.builder().bootstrap(broker.bootstrapServers()).topicPrefix(scheduler.prefix()).id("cli-gpu")
                .pool(POOL).label("gpu", "a100").slots(1)
                .handler(ctx -> ("echo " + ctx.payloadAsString()).getBytes(StandardCharsets.UTF_8)).build();
        // Ready once the gateway answers a snapshot (the stores are queryable).
        await().atMost(Duration.ofSeconds(60)).until(() -> run("snapshot").exit == 0);
        worker.start();
    }

    @AfterAll
    static void stop() {
        if (worker != null) {
            worker.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (scheduler != null) {
            scheduler.close();
        }
    }

    @Test
    void submittedTaskRunsAndStatusShowsItsAttempt() {
        Result submitted = run("submit", "--pool", POOL, "--label", "gpu=a100", "--id", "cli-1", "--payload", "hi");
        assertThat(submitted.exit).isZero();
        assertThat(submitted.out.trim()).isEqualTo("cli-1");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(run("status", "cli-1").out).contains("cli-1 in pool cli: SUCCEEDED").contains("cli-gpu"));
        assertThat(run("status", "cli-1", "--json").out).contains("\"state\":\"SUCCEEDED\"");
    }

    @Test
    void waitingTaskShowsItsReasonAndCanBeCancelled() {
        assertThat(run("submit", "--pool", POOL, "--label", "gpu=h100", "--id", "cli-2").exit).isZero();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(run("status", "cli-2").out).contains("WAITING").contains("gpu=h100"));

        assertThat(run("cancel", "cli-2", "--reason", "not today").exit).isZero();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(run("status", "cli-2").out).contains("CANCELLED"));
    }

    @Test
    void timeAndRetryFlagsReachTheTaskTheGatewayShows() throws Exception {
        Result submitted = run("submit", "--pool", POOL, "--label", "gpu=h100", "--id", "cli-3",
                "--deadline", "2030-01-02T00:00:00Z", "--not-before", "2030-01-01T00:00:00Z",
                "--start-at", "2030-01-01T06:00:00Z", "--start-tolerance", "2m", "--timeout", "45m",
                "--max-attempts", "4", "--backoff", "15s", "--max-backoff", "10m");
        assertThat(submitted.exit).as(submitted.err).isZero();

        await().atMost(Duration.ofSeconds(60)).until(() -> run("status", "cli-3", "--json").exit == 0);
        JsonNode task = new ObjectMapper().readTree(run("status", "cli-3", "--json").out);
        assertThat(task.path("deadline").asText()).isEqualTo("2030-01-02T00:00:00Z");
        assertThat(task.path("notBefore").asText()).isEqualTo("2030-01-01T00:00:00Z");
        assertThat(task.path("startAt").asText()).isEqualTo("2030-01-01T06:00:00Z");
        assertThat(task.path("tolerance").asText()).isEqualTo("PT2M");
        assertThat(task.path("timeout").asText()).isEqualTo("PT45M");
        assertThat(task.path("maxAttempts").asInt()).isEqualTo(4);
        assertThat(task.path("backoff").asText()).isEqualTo("PT15S");
        assertThat(task.path("maxBackoff").asText()).isEqualTo("PT10M");
        assertThat(run("cancel", "cli-3").exit).isZero();
    }

    @Test
    void aGangSubmittedFromTheCommandLineShowsItsMembersWaitingTogether() {
        Result submitted = run("gangs", "submit", "--pool", POOL, "--id", "cli-g", "--size", "2", "--label", "gpu=h100",
                "--placement", "spread");
        assertThat(submitted.exit).as(submitted.err).isZero();
        assertThat(submitted.out.trim()).isEqualTo("cli-g");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(run("gangs", "show", "cli-g").out)
                .contains("Gang cli-g in pool cli: WAITING (2 members, placement SPREAD)")
                .containsPattern("0 +cli-g-0 +WAITING")
                .containsPattern("1 +cli-g-1 +WAITING"));
        assertThat(run("status", "cli-g-1").out).contains("cli-g-1 in pool cli: WAITING");
        assertThat(run("cancel", "cli-g-0").exit).isZero();
    }

    @Test
    void snapshotAndWorkersShowTheGroup() {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(run("snapshot").out).contains("gpu=a100");
            assertThat(run("workers", "--pool", POOL).out).contains("cli-gpu").contains("ACTIVE");
        });
    }

    @Test
    void invalidInputExitsTwoNamingTheField() {
        Result bad = run("submit", "--pool", POOL, "--memory", "8GB");
        assertThat(bad.exit).isEqualTo(2);
        assertThat(bad.err).contains("resources.memory").contains("8GB");
    }

    @Test
    void unknownTaskAndUnreachableGatewayExitOne() {
        assertThat(run("status", "no-such-task").exit).isEqualTo(1);
        Result unreachable = runAt("http://127.0.0.1:" + LocalKafka.freePort(), "snapshot");
        assertThat(unreachable.exit).isEqualTo(1);
        assertThat(unreachable.err).contains("cannot reach the gateway");
    }

    private record Result(int exit, String out, String err) {}

    private static Result run(String... args) {
        return runAt(gateway.url(), args);
    }

    private static Result runAt(String url, String... args) {
        CommandLine cli = Cronoq.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        String[] withUrl = new String[args.length + 2];
        System.arraycopy(args, 0, withUrl, 0, args.length);
        withUrl[args.length] = "--url";
        withUrl[args.length + 1] = url;
        int exit = cli.execute(withUrl);
        return new Result(exit, out.toString(), err.toString());
    }
}
