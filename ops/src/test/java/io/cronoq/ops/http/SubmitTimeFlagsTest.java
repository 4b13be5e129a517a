package io.cronoq.ops.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.ops.Cronoq;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code cronoq submit}'s time and retry flags: what body they make, and how a bad value is refused (no gateway needed). */
class SubmitTimeFlagsTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @Test
    void everyTimeAndRetryFlagBecomesTheGatewaysField() throws Exception {
        JsonNode body = body("--pool", "p", "--deadline", "2026-03-02T00:00:00Z", "--not-before", "+10m",
                "--start-at", "2026-03-01T12:30:00+02:00", "--start-tolerance", "90s", "--timeout", "1h30m",
                "--max-attempts", "5", "--backoff", "10s", "--max-backoff", "5m");

        assertThat(body.path("deadline").asText()).isEqualTo("2026-03-02T00:00:00Z");
        assertThat(body.path("notBefore").asText()).as("+10m from the command's now").isEqualTo("2026-03-01T10:10:00Z");
        assertThat(body.path("startAt").asText()).as("an offset is normalised to UTC").isEqualTo("2026-03-01T10:30:00Z");
        assertThat(body.path("tolerance").asText()).isEqualTo("PT1M30S");
        assertThat(body.path("timeout").asText()).isEqualTo("PT1H30M");
        assertThat(body.path("maxAttempts").asInt()).isEqualTo(5);
        assertThat(body.path("backoff").asText()).isEqualTo("PT10S");
        assertThat(body.path("maxBackoff").asText()).isEqualTo("PT5M");
    }

    @Test
    void parentFlagsBecomeAfterWithHowEachMustEnd() throws Exception {
        JsonNode body = body("--pool", "p", "--after", "train", "--after-failed", "probe", "--after-finished", "load",
                "--run-if-parent-unmet");

        assertThat(body.path("after").toString())
                .isEqualTo("[\"train\",{\"task\":\"probe\",\"when\":\"failed\"},{\"task\":\"load\",\"when\":\"finished\"}]");
        assertThat(body.path("onParentUnmet").asText()).isEqualTo("run");
    }

    @Test
    void withoutTheFlagsTheBodyHasNoneOfTheFields() throws Exception {
        JsonNode body = body("--pool", "p");

        assertThat(body.fieldNames()).toIterable().containsExactly("pool");
    }

    @Test
    void aZeroToleranceAndAZeroBackoffAreAllowed() throws Exception {
        JsonNode body = body("--pool", "p", "--start-at", "+1h", "--start-tolerance", "0s", "--backoff", "0s");

        assertThat(body.path("tolerance").asText()).isEqualTo("PT0S");
        assertThat(body.path("backoff").asText()).isEqualTo("PT0S");
        assertThat(body.path("startAt").asText()).isEqualTo("2026-03-01T11:00:00Z");
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of(new String[] {"--deadline", "tomorrow"}, "--deadline 'tomorrow' is not a time",
                        "+10m"),
                Arguments.of(new String[] {"--not-before", "2026-03-01"}, "--not-before '2026-03-01' is not a time",
                        "2026-03-01T00:00:00Z"),
                Arguments.of(new String[] {"--start-at", "+soon"}, "--start-at '+soon' is not a time", "+1h30m"),
                Arguments.of(new String[] {"--start-at", "+PT-5M"}, "--start-at '+PT-5M' is not a time", "+10m"),
                Arguments.of(new String[] {"--start-tolerance", "5m"}, "--start-tolerance 5m needs --start-at",
                        "add --start-at"),
                Arguments.of(new String[] {"--start-at", "+1h", "--start-tolerance", "5 min"},
                        "--start-tolerance '5 min' is not a duration", "5s, 2m"),
                Arguments.of(new String[] {"--timeout", "0s"}, "--timeout '0s' is zero", "--timeout 30m"),
                Arguments.of(new String[] {"--timeout", "PT-5S"}, "--timeout 'PT-5S' is negative", "0 or more"),
                Arguments.of(new String[] {"--timeout", "30"}, "--timeout '30' is not a duration", "500ms"),
                Arguments.of(new String[] {"--max-attempts", "0"}, "--max-attempts 0", "at least 1 attempt"),
                Arguments.of(new String[] {"--max-attempts", "three"}, "--max-attempts", "three"),
                Arguments.of(new String[] {"--backoff", "1m", "--max-backoff", "10s"},
                        "--max-backoff 10s is shorter than the first wait (--backoff 1m)", "at least the first wait"),
                Arguments.of(new String[] {"--max-backoff", "500ms"},
                        "--max-backoff 500ms is shorter than the first wait (--backoff defaults to 1s)",
                        "at least the first wait"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badValues")
    void aBadValueExitsTwoNamingTheFlagAndWhatToGive(String[] flags, String names, String fix) {
        String[] args = Stream.concat(Stream.of("submit", "--pool", "p", "--url",
                "http://127.0.0.1:" + LocalKafka.freePort()), Stream.of(flags)).toArray(String[]::new);
        CommandLine cli = Cronoq.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));

        int exit = cli.execute(args);

        assertThat(exit).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains(names).contains(fix).doesNotContain("cannot reach the gateway");
    }

    @Test
    void timeFlagsReadInstantsAndDurationsFromNow() {
        assertThat(TimeFlags.time("--x", "+1h30m", CLOCK)).isEqualTo(NOW.plus(Duration.ofMinutes(90)));
        assertThat(TimeFlags.time("--x", "+PT2H", CLOCK)).isEqualTo(NOW.plus(Duration.ofHours(2)));
        assertThat(TimeFlags.time("--x", " 2026-01-01T00:00:00Z ", CLOCK)).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(TimeFlags.duration("--x", "500ms")).isEqualTo(Duration.ofMillis(500));
        assertThatThrownBy(() -> TimeFlags.positiveDuration("--x", "0ms")).hasMessageContaining("--x '0ms' is zero");
    }

    private static JsonNode body(String... args) throws Exception {
        SubmitCommand submit = new SubmitCommand();
        submit.clock = CLOCK;
        new CommandLine(submit).parseArgs(args);
        return submit.body();
    }
}
