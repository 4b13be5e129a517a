package io.cronoq.ops;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cronoq dev}: the whole platform on this machine, on an embedded Kafka, until Ctrl-C. */
@Command(name = "dev", mixinStandardHelpOptions = true,
        description = "Run the whole platform locally: Kafka, the topics, a scheduler and demo workers.")
final class DevCommand implements Callable<Integer> {

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = ".cronoq",
            description = "Where Kafka's data and the scheduler's state live; a second run resumes them (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--kafka-port", paramLabel = "PORT", defaultValue = "9092",
            description = "Kafka's client port; its controller uses the next one (default: ${DEFAULT-VALUE}).")
    int kafkaPort;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "HTTP port of the gateway and dashboard (default: ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "Address the gateway listens on (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 for every "
                    + "interface — then anyone who can reach the port may submit and drain unless --config gives tokens).")
    String bind;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A cronoq TOML config file, as `cronoq scheduler --config` reads it: its settings (under dev's own "
                    + "Kafka, state directory and port), its [[auth.tokens]], its [[sharing.tenants]] and "
                    + "[[sharing.pools]], and its [[limits.keys]] and [[limits.rates]], to try tokens, sharing and "
                    + "limits locally.")
    Path configFile;

    @Option(names = "--no-demo", description = "Start no demo workers.")
    boolean noDemo;

    @Override
    public Integer call() throws InterruptedException {
        if (kafkaPort < 1 || kafkaPort > 65534) {
            throw new IllegalArgumentException("--kafka-port must be between 1 and 65534, got " + kafkaPort);
        }
        if (httpPort < 1 || httpPort > 65535) {
            throw new IllegalArgumentException("--port must be between 1 and 65535, got " + httpPort);
        }
        DevPlatform platform = DevPlatform.start(
                new DevPlatform.Options(dataDir, kafkaPort, kafkaPort + 1, httpPort, !noDemo, bind, configFile),
                System.out);
        UntilStopped.closeOnShutdown("cronoq-dev-shutdown", () -> {
            System.out.println("\nStopping cronoq …");
            platform.close();
            System.out.println("Stopped.");
        }).await();
        return 0;
    }
}
