package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.scheduler.config.SchedulerConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The config file's {@code [[limits.keys]]} and {@code [[limits.rates]]}: what they set, what is
 * refused (naming the entry and its key, e.g. {@code limits.rates[0].perSecond}), and how they join
 * the sharing policy in what a start sends.
 */
class LimitsConfigTest {

    private static final Instant AT = Instant.parse("2026-03-01T10:00:00Z");

    @TempDir
    Path dir;

    private Path write(String toml) throws IOException {
        return Files.writeString(dir.resolve("cronoq.toml"), toml);
    }

    @Test
    void entriesBecomeLimitChangesSetByTheConfigFile() throws IOException {
        Path file = write("""
                [cronoq]
                commit.interval.ms = 50

                [[limits.rates]]
                pool = "gpu"
                name = "openai"
                perSecond = 10
                burst = 20

                [[limits.keys]]
                pool = "gpu"
                key = "customer-42"
                max = 2

                [[limits.rates]]
                pool = "gpu"
                name = "slow-api"
                perSecond = 0.5

                [[limits.keys]]
                pool = "etl"
                key = "customer-42"
                max = 1
                """);

        List<LimitSet> limits = LimitsConfig.read(file, AT);

        assertThat(limits).as("the keys first, then the rates, each in file order").containsExactly(
                new LimitSet("gpu", LimitKind.CONCURRENCY_KEY, "customer-42", 2, null, null, "config file", AT),
                new LimitSet("etl", LimitKind.CONCURRENCY_KEY, "customer-42", 1, null, null, "config file", AT),
                new LimitSet("gpu", LimitKind.RATE_LIMIT, "openai", null, 10.0, 20, "config file", AT),
                new LimitSet("gpu", LimitKind.RATE_LIMIT, "slow-api", null, 0.5, null, "config file", AT));
        assertThat(ConfigFile.read(file)).as("limits are not settings").containsOnlyKeys("cronoq.commit.interval.ms");
        assertThat(SchedulerConfig.of(ConfigFile.read(file)).kafkaClientSettings()).noneSatisfy((k, v) ->
                assertThat(k).startsWith("limits"));
    }

    @Test
    void aFileWithoutLimitsSetsNone() throws IOException {
        assertThat(LimitsConfig.read(write("[cronoq]\ncommit.interval.ms = 50\n"), AT)).isEmpty();
        assertThat(ConfigChanges.read(null, AT)).isEqualTo(ConfigChanges.NONE);
        assertThat(ConfigChanges.NONE.isEmpty()).isTrue();
    }

    @Test
    void aStartSendsTheSharingPolicyThenTheLimitsEachKeyedByItsPool() throws IOException {
        Path file = write("""
                [[limits.keys]]
                pool = "etl"
                key = "nightly"
                max = 1

                [[sharing.tenants]]
                pool = "gpu"
                tenant = "research"
                weight = 3

                [[limits.rates]]
                pool = "gpu"
                name = "openai"
                perSecond = 2
                """);

        ConfigChanges changes = ConfigChanges.read(file, AT);

        assertThat(changes.changes()).extracting(ConfigChanges.Change::pool).containsExactly("gpu", "etl", "gpu");
        assertThat(changes.changes()).extracting(c -> c.event().getEvent().getClass().getSimpleName())
                .containsExactly("SharingPolicySet", "LimitSet", "LimitSet");
        assertThat(changes.what()).isEqualTo("sharing policy and limits");
        assertThat(changes.summary()).isEqualTo("1 tenant setting(s) and 0 pool setting(s); 1 key limit(s) and "
                + "1 rate limit(s)");
        assertThat(new ConfigChanges(List.of(), changes.limits()).what()).isEqualTo("limits");
        assertThat(new ConfigChanges(changes.sharing(), List.of()).what()).isEqualTo("sharing policy");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nperSecond = 0"
                + " | limits.rates[0].perSecond is 0.0; a rate limit refills above 0 and at most 1000000 units per second",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nperSecond = 2000000"
                + " | limits.rates[0].perSecond is 2000000.0; a rate limit refills above 0",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nperSecond = '10'"
                + " | limits.rates[0].perSecond must be a number, e.g. perSecond = 3 or perSecond = 0.5",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nburst = 5"
                + " | limits.rates[0].perSecond is missing; e.g. perSecond = 10",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nperSecond = 2\\nburst = 0"
                + " | limits.rates[0].burst is 0; a rate limit holds 1 to 1000000 units",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nperSecond = 2\\nburst = 2.5"
                + " | limits.rates[0].burst is 2.5; give a whole number of units, e.g. burst = 20",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'open ai'\\nperSecond = 2"
                + " | limits.rates[0].name 'open ai' is not allowed; a rate limit's name is",
        "[[limits.rates]]\\npool = 'gpu'\\nperSecond = 2"
                + " | limits.rates[0].name is missing; e.g. name = \"openai\"",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nper_second = 2"
                + " | limits.rates[0]: unknown key 'per_second'; known keys: [burst, name, perSecond, pool]",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'openai'\\nperSecond = 2\\nmax = 3"
                + " | limits.rates[0]: unknown key 'max'",
        "[[limits.rates]]\\npool = 'gpu'\\nname = 'a'\\nperSecond = 2\\n[[limits.rates]]\\npool = 'gpu'\\nname = 'a'\\nperSecond = 3"
                + " | limits.rates[1].name a of pool gpu is already set by limits.rates[0]; give each rate limit of a "
                + "pool one [[limits.rates]] entry",
        "[[limits.keys]]\\npool = 'gpu'\\nkey = 'customer-42'\\nmax = 0"
                + " | limits.keys[0].max is 0; a key's limit is 1 to 1000000 attempts at once",
        "[[limits.keys]]\\npool = 'gpu'\\nkey = 'customer-42'"
                + " | limits.keys[0].max is missing; e.g. max = 2",
        "[[limits.keys]]\\npool = 'gpu'\\nkey = 'customer-42'\\nmax = 1.5"
                + " | limits.keys[0].max is 1.5; give a whole number, e.g. max = 2",
        "[[limits.keys]]\\npool = 'gpu'\\nkey = 'customer 42'\\nmax = 2"
                + " | limits.keys[0].key 'customer 42' is not allowed; a concurrency key is 1 to 200 characters",
        "[[limits.keys]]\\npool = 'gpu'\\nkey = 42\\nmax = 2"
                + " | limits.keys[0].key must be a string, e.g. key = \"42\"",
        "[[limits.keys]]\\nkey = 'k'\\nmax = 2"
                + " | limits.keys[0].pool is missing; e.g. pool = \"gpu\"",
        "[[limits.keys]]\\npool = 'g/pu'\\nkey = 'k'\\nmax = 2"
                + " | limits.keys[0].pool 'g/pu' is not allowed; a pool name is",
        "[[limits.keys]]\\npool = 'gpu'\\nkey = 'k'\\nmax = 2\\nburst = 3"
                + " | limits.keys[0]: unknown key 'burst'; known keys: [key, max, pool]",
        "[[limits.keys]]\\npool = 'gpu'\\nkey = 'k'\\nmax = 2\\n[[limits.keys]]\\npool = 'etl'\\nkey = 'k'\\nmax = 2"
                + "\\n[[limits.keys]]\\npool = 'gpu'\\nkey = 'k'\\nmax = 3"
                + " | limits.keys[2].key k of pool gpu is already set by limits.keys[0]; give each key of a pool one",
        "[[limits.key]]\\npool = 'gpu'"
                + " | [limits] has an unknown key 'key'; known: [[limits.keys]] and [[limits.rates]]",
        "[limits.rates]\\npool = 'gpu'"
                + " | limits.rates must be an array of tables, written [[limits.rates]]"})
    void aMalformedEntryIsRefusedNamingItAndItsKey(String toml, String message) throws IOException {
        Path file = write(toml.replace("\\n", "\n"));

        assertThatThrownBy(() -> LimitsConfig.read(file, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void schedulerWithAMalformedLimitExits2NamingItBeforeConnecting() throws IOException {
        Path file = write("""
                [[limits.rates]]
                pool = "gpu"
                name = "openai"
                perSecond = -1
                """);
        ConfigRefusals.schedulerExits2(file, "limits.rates[0].perSecond is -1.0");
    }

    @Test
    void devWithAMalformedLimitFailsBeforeKafkaStarts() throws IOException {
        Path file = write("[[limits.keys]]\npool = \"gpu\"\nkey = \"k\"\nmax = \"two\"\n");
        ConfigRefusals.devFailsBeforeKafkaStarts(dir, file, "limits.keys[0].max is two; give a whole number, e.g. max = 2");
    }

    @Test
    void schedulerHelpShowsTheLimitEntries() {
        StringWriter out = new StringWriter();
        CommandLine cli = Cronoq.commandLine();
        cli.setOut(new PrintWriter(out, true));

        cli.execute("scheduler", "--help");

        assertThat(out.toString()).contains("[[limits.keys]]", "[[limits.rates]]", "perSecond = 10", "max = 2");
    }
}
