package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConfigFileTest {

    @TempDir
    Path dir;

    private Path write(String toml) throws IOException {
        Path file = dir.resolve("cronoq.toml");
        Files.writeString(file, toml);
        return file;
    }

    @Test
    void authTokensAreReadAsEntriesAndFlatKeysStillFlatten() throws IOException {
        Path file = write("""
                [cronoq]
                commit.interval.ms = 50

                [[auth.tokens]]
                token_env = "CRONOQ_GPU_WORKER_TOKEN"
                role = "worker"
                pools = ["inference"]
                labels = ["gpu=a100", "zone=eu"] # a worker with this token may claim only these

                [[auth.tokens]]
                token_env = "CRONOQ_ADMIN_TOKEN"
                role = "admin"
                """);

        List<Map<String, Object>> entries = ConfigFile.tables(file, "auth.tokens");
        Credentials credentials = Credentials.fromEntries(entries,
                Map.of("CRONOQ_GPU_WORKER_TOKEN", "gpu", "CRONOQ_ADMIN_TOKEN", "admin")::get);

        assertThat(ConfigFile.read(file)).containsEntry("cronoq.commit.interval.ms", "50").hasSize(1);
        assertThat(entries).hasSize(2);
        assertThat(entries.get(0)).containsEntry("labels", List.of("gpu=a100", "zone=eu"));
        assertThat(credentials.byName("CRONOQ_GPU_WORKER_TOKEN").orElseThrow().allowsLabel("gpu", "a100")).isTrue();
        assertThat(credentials.byName("CRONOQ_ADMIN_TOKEN").orElseThrow().role()).isEqualTo(Role.ADMIN);
    }

    @Test
    void schedulerWithATokenWhoseVariableIsUnsetExits2NamingTheEntryBeforeConnecting() throws IOException {
        Path file = write("""
                [[auth.tokens]]
                token_env = "CRONOQ_TEST_TOKEN_THAT_IS_NEVER_SET"
                role = "admin"
                """);
        StringWriter err = new StringWriter();
        CommandLine cli = Cronoq.commandLine();
        cli.setErr(new PrintWriter(err, true));

        int code = cli.execute("scheduler", "--config", file.toString(), "--bootstrap", "127.0.0.1:1");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("[[auth.tokens]] entry 0 (token_env CRONOQ_TEST_TOKEN_THAT_IS_NEVER_SET)")
                .contains("unset or empty");
    }

    @Test
    void noTokensMeansNoEntriesAndATableInsteadOfAnArrayIsRefused() throws IOException {
        assertThat(ConfigFile.tables(write("[cronoq]\ncommit.interval.ms = 50\n"), "auth.tokens")).isEmpty();
        assertThatThrownBy(() -> ConfigFile.tables(write("[auth.tokens]\nrole = \"admin\"\n"), "auth.tokens"))
                .hasMessageContaining("[[auth.tokens]]");
    }
}
