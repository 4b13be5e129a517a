package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.testkit.KafkaBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * driven by Selenium) against a real scheduler: it shows the pool and its groups with the right
 * numbers, updates on its own when tasks are submitted, lists waiting tasks with their reasons and
 * shows a task's history on click. Without Chromium it fails, saying what to install, unless
 * {@code -Dcronoq.browser.skip=true} on a machine without the {@code CI} environment variable.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DashboardBrowserIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final Path CHROMIUM = Path.of(System.getProperty("cronoq.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("cronoq.chromedriver", "/usr/bin/chromedriver"));
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String POOL = "dashboard";
    private static final String OTHER_POOL = "dashboard-history";

    private static SchedulerNode node;
    private static Inputs inputs;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws IOException {
        requireChromium();
        node = SchedulerNode.start(broker, broker.uniqueName("dash") + ".", broker.uniqueName("scheduler"), 1);
        inputs = new Inputs(broker, node.app.topics());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + Files.createTempDirectory("cronoq-chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    private static void requireChromium() {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        // CI (the CI variable set, as .ci/run does) never skips: a missing browser there is a failure.
        if (!present && Boolean.getBoolean("cronoq.browser.skip") && System.getenv("CI") == null) {
            Assumptions.abort("Chromium is not installed and -Dcronoq.browser.skip=true: the dashboard is not tested");
        }
        assertThat(present).as("The dashboard test needs Chromium and its driver at %s and %s. The gateway's build "
                + "installs Debian's before its broker tests (src/test/browser/ensure-chromium); elsewhere install "
                + "them with 'apt-get install -y chromium chromium-driver', point -Dcronoq.chromium/-Dcronoq.chromedriver "
                + "at them, or skip locally with -Dcronoq.browser.skip=true", CHROMIUM, CHROMEDRIVER).isTrue();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (inputs != null) {
            inputs.close();
        }
        if (node != null) {
            node.close();
        }
    }

    @Test
    void pageShowsThePoolAndItsGroupsAndUpdatesWhenTasksAreSubmitted() {
        inputs.register(POOL, "cpu-1", Map.of(), 2);
        inputs.register(POOL, "gpu-1", Map.of("gpu", "a100"), 2);
        submit("g1");
        await().atMost(WAIT).until(() -> node.api.get("/v1/tasks/g1").json().path("state").asText().equals("ASSIGNED"));

        browser.get(node.gateway.url() + "/");

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(text("[data-pool='" + POOL + "'] .pool-capacity")).isEqualTo("4");
            assertThat(text("[data-pool='" + POOL + "'] .pool-busy")).isEqualTo("1");
            assertThat(text(group("gpu=a100") + " .group-capacity")).isEqualTo("2");
            assertThat(text(group("gpu=a100") + " .group-busy")).isEqualTo("1");
            assertThat(text(group("") + " .group-capacity")).isEqualTo("2");
            assertThat(text(group("") + " .group-busy")).isEqualTo("0");
        });

        submit("g2");
        submit("g3");

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(text(group("gpu=a100") + " .group-busy")).as("the page refreshed itself").isEqualTo("2");
            assertThat(text("[data-pool='" + POOL + "'] .pool-waiting")).isEqualTo("1");
            assertThat(text("#waiting tr[data-task='g3']")).as("the scheduler's reason").contains("busy");
        });
    }

    @Test
    void clickingATaskShowsItsHistory() {
        inputs.register(OTHER_POOL, "gpu-2", Map.of("gpu", "h100"), 1);
        submit(OTHER_POOL, "h1", "h100");
        await().atMost(WAIT).until(() -> node.api.get("/v1/tasks/h1").json().path("state").asText().equals("ASSIGNED"));
        browser.get(node.gateway.url() + "/");

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> browser.findElement(By.cssSelector("#tasks tr[data-task='h1']")).click());

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(browser.findElement(By.id("task-detail")).isDisplayed()).isTrue();
            assertThat(text("#task-detail-id")).isEqualTo("h1");
            assertThat(text("#task-detail-fields [data-field='state']")).isEqualTo("ASSIGNED");
            List<WebElement> attempts = browser.findElements(By.cssSelector("#task-detail-attempts tbody tr"));
            assertThat(attempts).hasSize(1);
            assertThat(attempts.get(0).getText()).contains("gpu-2").contains("gpu=h100");
        });
    }

    private static void submit(String id) {
        submit(POOL, id, "a100");
    }

    private static void submit(String pool, String id, String gpu) {
        Api.Reply reply = node.api.post("/v1/tasks",
                "{\"pool\":\"%s\",\"id\":\"%s\",\"labels\":{\"gpu\":\"%s\"}}".formatted(pool, id, gpu));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(202);
    }

    private static String group(String key) {
        return "[data-pool='" + POOL + "'] [data-group='" + key + "']";
    }

    private static String text(String css) {
        return browser.findElement(By.cssSelector(css)).getText();
    }
}
