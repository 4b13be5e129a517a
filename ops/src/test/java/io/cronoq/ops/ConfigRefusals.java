package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.kafka.LocalKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import picocli.CommandLine;

/** How a malformed config file is refused at start, the same for each of its sections: before anything connects or starts. */
final class ConfigRefusals {

    private ConfigRefusals() {}

    /** {@code cronoq scheduler --config file} exits 2 with {@code message} on stderr, before it connects to Kafka. */
    static void schedulerExits2(Path file, String message) {
        StringWriter err = new StringWriter();
        CommandLine cli = Cronoq.commandLine();
        cli.setErr(new PrintWriter(err, true));

        int code = cli.execute("scheduler", "--config", file.toString(), "--bootstrap", "127.0.0.1:1");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains(message);
    }

    /** {@code cronoq dev --config file} fails with {@code message} before Kafka starts: its data directory is not made. */
    static void devFailsBeforeKafkaStarts(Path dir, Path file, String message) {
        DevPlatform.Options options = new DevPlatform.Options(dir.resolve("data"), LocalKafka.freePort(),
                LocalKafka.freePort(), LocalKafka.freePort(), false, "127.0.0.1", file);

        assertThatThrownBy(() -> DevPlatform.start(options, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
        assertThat(dir.resolve("data")).doesNotExist();
    }
}
