package io.cronoq.client.bench;

import io.cronoq.client.CronoqClient;
import io.cronoq.client.Task;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many submissions per second one thread gets through {@link CronoqClient}: each submission is
 * a {@code Task} built (validated, id drawn) and submitted, and a round ends when every future has
 * completed, i.e. every submission is durable ({@code acks=all}). A second figure submits one at a
 * time and waits for each ({@code submit(task).join()}). A benchmark, not a test:
 *
 * <pre>
 * ./mvnw -B -pl client test-compile exec:exec@bench [-Dbench.args="--tasks 200000 --rounds 5 --linger 5"]
 * </pre>
 *
 * Options: {@code --tasks} per round (200000), {@code --rounds} measured (5), {@code --warmup} rounds
 * (2), {@code --pools} the tasks spread over (4), {@code --payload} bytes (100), {@code --linger}
 * ms (5), {@code --sync} one-at-a-time submissions (2000), {@code --bootstrap} an existing cluster
 * instead of the in-JVM one. The in-JVM broker shares the machine with the client: on a laptop or
 * CI box the figure is a floor, not a ceiling.
 */
public final class ClientThroughputBench {

    private static final Logger log = LoggerFactory.getLogger(ClientThroughputBench.class);

    private ClientThroughputBench() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        Path dataDir = Files.createTempDirectory("cronoq-bench-kafka");
        LocalKafka kafka = o.bootstrap == null ? LocalKafka.start(dataDir, LocalKafka.freePort(), LocalKafka.freePort()) : null;
        String bootstrap = kafka != null ? kafka.bootstrapServers() : o.bootstrap;
        try {
            String prefix = "bench-" + Long.toHexString(System.nanoTime()) + ".";
            createTopics(bootstrap, prefix);
            try (CronoqClient client = CronoqClient.builder(bootstrap).topicPrefix(prefix)
                    .kafkaProperty("linger.ms", o.lingerMs).build()) {
                run(client, o);
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    private static void run(CronoqClient client, Options o) {
        byte[] payload = new byte[o.payloadBytes];
        Arrays.fill(payload, (byte) 'x');
        List<Task.Builder> templates = new ArrayList<>();
        for (int p = 0; p < o.pools; p++) {
            templates.add(Task.of(payload).pool("pool-" + p).label("gpu", "a100").memory("8Gi"));
        }
        for (int i = 0; i < o.warmupRounds; i++) {
            double rate = pipelined(client, templates, o.tasks);
            log.info("warmup {}: {} submissions/s", i + 1, Math.round(rate));
        }
        double[] rates = new double[o.rounds];
        for (int i = 0; i < o.rounds; i++) {
            rates[i] = pipelined(client, templates, o.tasks);
            log.info("round {}: {} submissions/s", i + 1, Math.round(rates[i]));
        }
        Arrays.sort(rates);
        long buildStart = System.nanoTime();
        int built = 0;
        for (int i = 0; i < o.tasks; i++) {
            built += templates.get(i % templates.size()).build().id().length() > 0 ? 1 : 0;
        }
        double buildRate = built / ((System.nanoTime() - buildStart) / 1e9);
        long syncStart = System.nanoTime();
        for (int i = 0; i < o.sync; i++) {
            client.submit(templates.get(i % templates.size()).build()).join();
        }
        double syncSeconds = (System.nanoTime() - syncStart) / 1e9;
        log.info("RESULT pipelined, one thread: median {} submissions/s (min {}, max {}) over {} rounds of {} tasks; "
                        + "{} pools, {} B payload, linger.ms={}, acks=all, idempotent",
                Math.round(rates[rates.length / 2]), Math.round(rates[0]), Math.round(rates[rates.length - 1]),
                o.rounds, o.tasks, o.pools, o.payloadBytes, o.lingerMs);
        log.info("RESULT building alone (validate, draw the id): {} tasks/s", Math.round(buildRate));
        log.info("RESULT one at a time (submit().join()): {} submissions/s, {} ms each on average",
                Math.round(o.sync / syncSeconds), String.format("%.2f", syncSeconds * 1000 / Math.max(1, o.sync)));
    }

    /** Builds and submits {@code n} tasks from one thread; the clock stops when the last is durable. */
    private static double pipelined(CronoqClient client, List<Task.Builder> templates, int n) {
        CompletableFuture<?>[] sent = new CompletableFuture<?>[n];
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sent[i] = client.submit(templates.get(i % templates.size()).build());
        }
        CompletableFuture.allOf(sent).join();
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private static void createTopics(String bootstrap, String prefix) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(
                    new NewTopic(prefix + "submissions", Optional.of(Topics.DEFAULT_PARTITIONS), Optional.empty()),
                    new NewTopic(Topics.schemasTopic(prefix), Optional.of(1), Optional.empty())
                            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The command line, with the defaults of the class comment. */
    private record Options(int tasks, int rounds, int warmupRounds, int pools, int payloadBytes, int lingerMs, int sync,
                           String bootstrap) {

        static Options parse(String[] args) {
            Map<String, String> given = new HashMap<>();
            for (int i = 0; i + 1 < args.length; i += 2) {
                if (!args[i].startsWith("--")) {
                    throw new IllegalArgumentException("expected --option value pairs, got '" + args[i] + "'");
                }
                given.put(args[i].substring(2), args[i + 1]);
            }
            return new Options(intOf(given, "tasks", 200_000), intOf(given, "rounds", 5), intOf(given, "warmup", 2),
                    intOf(given, "pools", 4), intOf(given, "payload", 100), intOf(given, "linger", 5),
                    intOf(given, "sync", 2000), given.get("bootstrap"));
        }

        private static int intOf(Map<String, String> given, String name, int defaultValue) {
            String v = given.get(name);
            return v == null ? defaultValue : Integer.parseInt(v);
        }
    }
}
