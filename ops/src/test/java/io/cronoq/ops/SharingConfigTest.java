package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.scheduler.config.SchedulerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The config file's {@code [[sharing.tenants]]} and {@code [[sharing.pools]]}: what they set, and what is refused. */
class SharingConfigTest {

    private static final Instant AT = Instant.parse("2026-03-01T10:00:00Z");

    @TempDir
    Path dir;

    private Path write(String toml) throws IOException {
        return Files.writeString(dir.resolve("cronoq.toml"), toml);
    }

    @Test
    void entriesBecomeSharingChangesSetByTheConfigFile() throws IOException {
        Path file = write("""
                [cronoq]
                commit.interval.ms = 50

                [[sharing.tenants]]
                pool = "gpu"
                tenant = "research"
                weight = 3
                quotas = [{ labels = { gpu = "a100" }, guaranteed = 4, max = 16 }, { max = 20 }]

                [[sharing.tenants]]
                pool = "gpu"
                tenant = "interns"
                weight = 0.5
                quotas = []

                [[sharing.pools]]
                pool = "gpu"
                preemption = false
                preemption_grace = "2m"
                """);

        List<SharingPolicySet> policies = SharingConfig.read(file, AT);

        assertThat(policies).hasSize(3).allSatisfy(p -> {
            assertThat(p.getSetBy()).isEqualTo("config file");
            assertThat(p.getSetAt()).isEqualTo(AT);
            assertThat(p.getPool()).isEqualTo("gpu");
        });
        SharingPolicySet pool = policies.get(0);
        assertThat(pool.getTenant()).as("the pools' settings first").isNull();
        assertThat(pool.getPreemption()).isFalse();
        assertThat(pool.getPreemptionGraceMs()).isEqualTo(120_000);
        SharingPolicySet research = policies.get(1);
        assertThat(research.getTenant()).isEqualTo("research");
        assertThat(research.getWeight()).isEqualTo(3.0);
        assertThat(research.getQuotas()).containsExactly(new TenantQuota(Map.of("gpu", "a100"), 4, 16),
                new TenantQuota(Map.of(), 0, 20));
        SharingPolicySet interns = policies.get(2);
        assertThat(interns.getWeight()).isEqualTo(0.5);
        assertThat(interns.getQuotas()).as("an empty list removes the quotas").isEmpty();
        assertThat(ConfigFile.read(file)).as("sharing is not a setting").containsOnlyKeys("cronoq.commit.interval.ms");
        assertThat(SchedulerConfig.of(ConfigFile.read(file)).kafkaClientSettings()).noneSatisfy((k, v) ->
                assertThat(k).startsWith("sharing"));
    }

    @Test
    void aFileWithoutSharingSetsNothingAndAnEntryLeavesOutWhatItDoesNotSet() throws IOException {
        assertThat(SharingConfig.read(write("[cronoq]\ncommit.interval.ms = 50\n"), AT)).isEmpty();

        List<SharingPolicySet> policies = SharingConfig.read(write("""
                [[sharing.tenants]]
                pool = "gpu"
                tenant = "research"
                weight = 2
                [[sharing.pools]]
                pool = "gpu"
                preemption_grace = "45s"
                """), AT);

        assertThat(policies.get(0).getPreemption()).isNull();
        assertThat(policies.get(1).getQuotas()).as("quotas left as they are").isNull();
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'research'\\nweight = 0"
                + " | [[sharing.tenants]] entry 0: weight is 0.0; a tenant's weight is above 0 and at most 1000",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'research'\\nweight = '3'"
                + " | [[sharing.tenants]] entry 0: weight must be a number, e.g. weight = 3",
        "[[sharing.tenants]]\\npool = 'gpu'\\nweight = 3"
                + " | [[sharing.tenants]] entry 0: tenant is missing; e.g. tenant = \"research\"",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'research'\\nweigth = 3"
                + " | [[sharing.tenants]] entry 0: unknown key 'weigth'; known keys: [pool, quotas, tenant, weight]",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'research'"
                + " | [[sharing.tenants]] entry 0: weight and quotas are both missing",
        "[[sharing.tenants]]\\npool = 'g p u'\\ntenant = 'research'\\nweight = 2"
                + " | [[sharing.tenants]] entry 0: pool 'g p u' is not allowed; a pool name is",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'ml team'\\nweight = 2"
                + " | [[sharing.tenants]] entry 0: tenant 'ml team' is not allowed; a tenant name is",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = [{ labels = { gpu = 'a100' }, guaranteed = 20, max = 16 }]"
                + " | [[sharing.tenants]] entry 0: quotas[0].guaranteed is 20, above its max 16",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = [{ min = 2 }]"
                + " | [[sharing.tenants]] entry 0: quotas[0] has an unknown key 'min'; known keys: [guaranteed, labels, max]",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = [{ guaranteed = 2.5 }]"
                + " | [[sharing.tenants]] entry 0: quotas[0].guaranteed is 2.5; give a whole number of slots",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = [{ labels = { gpu = 100 }, max = 2 }]"
                + " | [[sharing.tenants]] entry 0: quotas[0].labels.gpu must be a string",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = [{ labels = { gpu = 'a 100' }, max = 2 }]"
                + " | [[sharing.tenants]] entry 0: quotas[0].labels.gpu: label value 'a 100' is not allowed",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = [{ labels = { gpu = 'a100' } }]"
                + " | [[sharing.tenants]] entry 0: quotas[0] sets nothing; give guaranteed, max or both",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = [{ max = 2 }, { guaranteed = 1 }]"
                + " | [[sharing.tenants]] entry 0: quotas[1].labels: quotas[1] repeats the scope the pool",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nquotas = { max = 2 }"
                + " | [[sharing.tenants]] entry 0: quotas must be a list of tables",
        "[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nweight = 2\\n[[sharing.tenants]]\\npool = 'gpu'\\ntenant = 'r'\\nweight = 3"
                + " | [[sharing.tenants]] entry 1: tenant r of pool gpu is already set by an earlier entry",
        "[[sharing.pools]]\\npool = 'gpu'\\npreemption = 'yes'"
                + " | [[sharing.pools]] entry 0: preemption must be true or false",
        "[[sharing.pools]]\\npool = 'gpu'\\npreemption_grace = 30"
                + " | [[sharing.pools]] entry 0: preemption_grace must be a duration in quotes, e.g. preemption_grace = \"30s\"",
        "[[sharing.pools]]\\npool = 'gpu'\\npreemption_grace = '30 s'"
                + " | [[sharing.pools]] entry 0: preemption_grace '30 s' is not a duration",
        "[[sharing.pools]]\\npool = 'gpu'\\npreemption_grace = 'PT-5S'"
                + " | [[sharing.pools]] entry 0: preemption_grace is PT-5S; a grace is 0 or more",
        "[[sharing.pools]]\\npool = 'gpu'"
                + " | [[sharing.pools]] entry 0: preemption and preemption_grace are both missing",
        "[[sharing.pools]]\\npool = 'gpu'\\ntenant = 'r'\\npreemption = true"
                + " | [[sharing.pools]] entry 0: unknown key 'tenant'; known keys: [pool, preemption, preemption_grace]",
        "[[sharing.pools]]\\npool = 'gpu'\\npreemption = true\\n[[sharing.pools]]\\npool = 'gpu'\\npreemption = false"
                + " | [[sharing.pools]] entry 1: pool gpu is already set by an earlier entry",
        "[[sharing.tenant]]\\npool = 'gpu'"
                + " | [sharing] has an unknown key 'tenant'; known: [[sharing.tenants]] and [[sharing.pools]]",
        "[sharing.tenants]\\npool = 'gpu'"
                + " | sharing.tenants must be an array of tables, written [[sharing.tenants]]"})
    void aMalformedEntryIsRefusedNamingItAndItsKey(String toml, String message) throws IOException {
        Path file = write(toml.replace("\\n", "\n"));

        assertThatThrownBy(() -> SharingConfig.read(file, AT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void schedulerWithAMalformedSharingEntryExits2NamingItBeforeConnecting() throws IOException {
        Path file = write("""
                [[sharing.tenants]]
                pool = "gpu"
                tenant = "research"
                weight = -1
                """);
        ConfigRefusals.schedulerExits2(file, "[[sharing.tenants]] entry 0: weight is -1.0");
    }

    @Test
    void devWithAMalformedSharingEntryFailsBeforeKafkaStarts() throws IOException {
        Path file = write("[[sharing.pools]]\npool = \"gpu\"\npreemption = \"off\"\n");
        ConfigRefusals.devFailsBeforeKafkaStarts(dir, file, "[[sharing.pools]] entry 0: preemption must be true or false");
    }
}
