package io.cronoq.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.client.CronoqClient;
import io.cronoq.client.Task;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * Measures what a user's question "when will my task start?" costs with a large backlog, end to end on
 * a running platform ({@code ./cronoq dev}): submits N tasks that wait (labels of a worker that is
 * busy for an hour, or RUN_MS), waits until the gateway knows the last of them, then asks {@code GET
 * /v1/tasks/{id}} for random ones of them, one question after the other, for S seconds, and prints the
 * latency's percentiles and how many answers carried an estimated start. A measuring tool, not a test:
 * <pre>
 * ./cronoq dev &amp;
 * ./mvnw -q -pl ops test-compile
 * java -cp "ops/target/test-classes:ops/target/classes:ops/target/lib/*" io.cronoq.ops.EstimateQueryLoad \
 *     127.0.0.1:9092 http://localhost:8080 demo 1000000 60
 * </pre>
 */
public final class EstimateQueryLoad {

    private EstimateQueryLoad() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 5 && args.length != 6) {
            System.err.println("usage: EstimateQueryLoad BOOTSTRAP GATEWAY_URL POOL TASKS SECONDS [RUN_MS]");
            System.exit(2);
        }
        String bootstrap = args[0];
        String gateway = args[1];
        String pool = args[2];
        int tasks = Integer.parseInt(args[3]);
        int seconds = Integer.parseInt(args[4]);
        String runMs = args.length == 6 ? args[5] : "3600000";
        String prefix = "load-" + Long.toString(System.currentTimeMillis(), 36) + "-";
        System.out.println("task ids: " + prefix + "0 to " + prefix + (tasks - 1));

        long sendStart = System.nanoTime();
        try (CronoqClient client = CronoqClient.connect(bootstrap)) {
            List<CompletableFuture<String>> sent = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                // The demo a100 worker runs a payload as that many milliseconds (by default an hour: the first two
                // hold its slots; a short run lets the gateway learn run times, and forecasts then place every copied task).
                sent.add(client.submit(Task.of(runMs).pool(pool).id(prefix + i).label("gpu", "a100")
                        .timeout(Duration.ofHours(2)).build()));
                if (sent.size() == 10_000) {
                    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
                    sent.clear();
                }
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
        }
        System.out.printf(Locale.ROOT, "submitted %,d tasks in %.1f s%n", tasks, (System.nanoTime() - sendStart) / 1e9);

        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        ObjectMapper json = new ObjectMapper();
        long foldStart = System.nanoTime();
        while (true) {
            HttpResponse<String> r = get(http, gateway, pool, prefix + (tasks - 1));
            if (r.statusCode() == 200 && "WAITING".equals(json.readTree(r.body()).path("state").asText())) {
                break;
            }
            Thread.sleep(1_000);
        }
        System.out.printf(Locale.ROOT, "the gateway knew the last one waiting %.1f s later%n",
                (System.nanoTime() - foldStart) / 1e9);

        SplittableRandom random = new SplittableRandom(42);
        long warmEnd = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < warmEnd) {
            get(http, gateway, pool, prefix + random.nextInt(tasks));
        }
        long[] latencies = new long[1 << 22];
        int n = 0;
        int estimated = 0;
        int failed = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end && n < latencies.length) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = get(http, gateway, pool, prefix + random.nextInt(tasks));
            latencies[n++] = System.nanoTime() - t0;
            if (r.statusCode() != 200) {
                failed++;
                continue;
            }
            JsonNode waiting = json.readTree(r.body()).path("waiting");
            if (waiting.hasNonNull("estimatedStart")) {
                estimated++;
            }
        }
        long[] sorted = Arrays.copyOf(latencies, n);
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "%,d questions in %d s: p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms; "
                        + "%,d with an estimated start, %,d failed%n", n, seconds, ms(sorted, 0.5), ms(sorted, 0.99),
                ms(sorted, 0.999), sorted[n - 1] / 1e6, estimated, failed);
    }

    private static HttpResponse<String> get(HttpClient http, String gateway, String pool, String id) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(gateway + "/v1/tasks/" + id + "?pool=" + pool))
                .timeout(Duration.ofSeconds(30)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static double ms(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }
}
