package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.client.CronoqClient;
import io.cronoq.client.Task;
import io.cronoq.client.TaskOutcome;
import io.cronoq.events.TaskState;
import io.cronoq.kafka.LocalKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** `cronoq dev` as a user meets it: the platform comes up, demo tasks run, and a second start resumes. */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DevPlatformTest {

    @TempDir
    Path dataDir;

    @Test
    void demoTasksRunToCompletionAndASecondStartResumesTheSameData() throws Exception {
        int port = LocalKafka.freePort();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        DevPlatform.Options options = new DevPlatform.Options(dataDir, port, LocalKafka.freePort(), LocalKafka.freePort(), true);

        try (DevPlatform platform = DevPlatform.start(options, new PrintStream(progress, true, StandardCharsets.UTF_8));
             CronoqClient client = CronoqClient.connect(platform.bootstrapServers())) {
            Task plain = Task.of("100").pool(DemoWorkers.POOL).build();
            Task gpu = Task.of("100").pool(DemoWorkers.POOL).label("gpu", "a100").build();
            client.submit(plain).get(30, TimeUnit.SECONDS);
            client.submit(gpu).get(30, TimeUnit.SECONDS);

            TaskOutcome plainOutcome = client.outcome(plain).get(90, TimeUnit.SECONDS);
            TaskOutcome gpuOutcome = client.outcome(gpu).get(90, TimeUnit.SECONDS);
            assertThat(plainOutcome.state()).isEqualTo(TaskState.SUCCEEDED);
            assertThat(gpuOutcome.state()).isEqualTo(TaskState.SUCCEEDED);
            assertThat(gpuOutcome.workerId()).contains("demo-gpu-1");

            // As the README's tour does it: submit over HTTP, see it succeed.
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> accepted = http.send(HttpRequest.newBuilder(URI.create(platform.gateway().url() + "/v1/tasks"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"pool\":\"demo\",\"id\":\"http-1\",\"payload\":\"100\"}"))
                            .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(accepted.statusCode()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(http.send(
                    HttpRequest.newBuilder(URI.create(platform.gateway().url() + "/v1/tasks/http-1")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).contains("\"state\":\"SUCCEEDED\""));

            HttpResponse<String> snapshot = http.send(
                    HttpRequest.newBuilder(URI.create(platform.gateway().url() + "/v1/snapshot?pool=demo")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(snapshot.statusCode()).isEqualTo(200);
            assertThat(snapshot.body()).contains("\"capacity\":6").contains("\"gpu\":\"a100\"");
        }
        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains("Kafka is up at 127.0.0.1:" + port, "Scheduler is running", "Gateway is up", "Demo workers registered");

        try (DevPlatform again = DevPlatform.start(options, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
             CronoqClient client = CronoqClient.connect(again.bootstrapServers())) {
            Task next = Task.of("50").pool(DemoWorkers.POOL).build();
            client.submit(next).get(30, TimeUnit.SECONDS);
            assertThat(client.outcome(next).get(90, TimeUnit.SECONDS).state()).isEqualTo(TaskState.SUCCEEDED);
        }
    }

    @Test
    void aTakenPortIsRefusedNamingTheFlag() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            DevPlatform.Options options = new DevPlatform.Options(dataDir, taken.getLocalPort(), LocalKafka.freePort(), LocalKafka.freePort(), false);
            assertThatThrownBy(() -> DevPlatform.start(options, new PrintStream(new ByteArrayOutputStream(), true,
                    StandardCharsets.UTF_8)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("port " + taken.getLocalPort() + " is in use")
                    .hasMessageContaining("--kafka-port");
        }
    }
}
