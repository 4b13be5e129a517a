package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.config.SchedulerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code cronoq dev} runs open, so its gateway listens on this machine only unless told otherwise
 * ({@code --bind}); {@code --config} reads the file {@code cronoq scheduler} reads, tokens and all.
 */
class DevCommandTest {

    @TempDir
    Path temp;

    @Test
    void theGatewayListensOnThisMachineOnlyByDefault() {
        DevCommand dev = new DevCommand();
        new CommandLine(dev).parseArgs();

        assertThat(dev.bind).isEqualTo("127.0.0.1");
        assertThat(dev.configFile).isNull();
        SchedulerConfig config = DevPlatform.config(new DevPlatform.Options(temp, 9092, 9093, 8080, false),
                "localhost:9092");
        assertThat(config.get(SchedulerConfig.HTTP_BIND)).isEqualTo("127.0.0.1");
        assertThat(DevPlatform.credentials(new DevPlatform.Options(temp, 9092, 9093, 8080, false)).isEmpty()).isTrue();
    }

    @Test
    void bindAndAConfigFileWithTokensAreOptions() throws Exception {
        Path file = temp.resolve("cronoq.toml");
        Files.writeString(file, """
                cronoq.task.retention.ms = 60000
                cronoq.http.bind = "10.1.2.3"

                [[auth.tokens]]
                role = "admin"
                token_env = "PATH"
                """);
        DevCommand dev = new DevCommand();
        new CommandLine(dev).parseArgs("--bind", "0.0.0.0", "--config", file.toString());

        assertThat(dev.bind).isEqualTo("0.0.0.0");
        DevPlatform.Options options = new DevPlatform.Options(temp, 9092, 9093, 8080, false, dev.bind, dev.configFile);
        SchedulerConfig config = DevPlatform.config(options, "localhost:19092");
        assertThat(config.get(SchedulerConfig.HTTP_BIND)).as("the flag decides, not the file").isEqualTo("0.0.0.0");
        assertThat(config.getLong(SchedulerConfig.TASK_RETENTION_MS)).as("the file's settings apply").isEqualTo(60_000);
        assertThat(config.get(SchedulerConfig.BOOTSTRAP_SERVERS)).as("dev's own Kafka").isEqualTo("localhost:19092");
        assertThat(DevPlatform.credentials(options).all()).hasSize(1);
    }
}
