package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.scheduler.testing.Inputs;
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
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver},
 * driven by Selenium) against a real scheduler: it shows the pool and its groups with the right
 * numbers, updates on its own when tasks are submitted, lists waiting tasks with their reasons,
 * shows a task's history on click, each pool's tenants against their fair share and quotas, and its rate limits
 * and busiest concurrency keys with what they hold back (saved at {@code target/dashboard-limits.png}); its
 * last-hour charts plot the figures the journal gives (and the test saves screenshots of them and of
 * a tenants panel at {@code target/dashboard-charts.png} and {@code target/dashboard-tenants.png}),
 * and a second gateway started later rebuilds the same minutes. Without Chromium it fails, saying what to install, unless
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
        browser.manage().window().setSize(new Dimension(1400, 1700));
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
    void pageShowsThePoolAndItsGroupsAndUpdatesWhenTasksAreSubmitted() throws IOException {
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

        // The last hour's charts: the figures they plot are the pool's, and they are drawn.
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            Map<String, Object> gpu = plotted("gpu=a100");
            assertThat(last(gpu, "capacity")).as("the group's slots").isEqualTo(2L);
            assertThat(last(gpu, "busy")).isEqualTo(2L);
            assertThat(last(gpu, "waiting")).as("g3 waits").isEqualTo(1L);
            assertThat(last(gpu, "workers")).isEqualTo(1L);
            Map<String, Object> cpu = plotted("");
            assertThat(last(cpu, "capacity")).isEqualTo(2L);
            assertThat(last(cpu, "busy")).isEqualTo(0L);
            assertThat(last(cpu, "waiting")).as("a task needing a GPU is not the unlabelled group's").isEqualTo(0L);
            Map<String, Object> total = total();
            assertThat(last(total, "capacity")).isEqualTo(4L);
            assertThat(last(total, "busy")).isEqualTo(2L);
            assertThat(last(total, "waiting")).isEqualTo(1L);
            assertThat(((List<?>) total.get("placed")).stream().mapToLong(v -> ((Number) v).longValue()).sum())
                    .as("g1 and g2 were placed").isEqualTo(2L);
            assertThat(((List<?>) total.get("waitP99Ms")).stream().filter(v -> v != null).count())
                    .as("a minute with placements has wait percentiles").isPositive();
            assertThat(((List<?>) total.get("capacity"))).as("60 minutes").hasSize(60);

            WebElement chart = browser.findElement(By.cssSelector("[data-chart='" + POOL + "/group/gpu=a100']"));
            assertThat(chart.getDomAttribute("data-capacity")).isEqualTo("2");
            assertThat(chart.getDomAttribute("data-busy")).isEqualTo("2");
            assertThat(chart.getDomAttribute("data-waiting")).isEqualTo("1");
            WebElement canvas = chart.findElement(By.tagName("canvas"));
            assertThat(canvas.getSize().getWidth()).isGreaterThan(200);
            assertThat(canvas.getSize().getHeight()).isGreaterThan(50);
            WebElement waits = browser.findElement(By.cssSelector("[data-chart='" + POOL + "/wait'] canvas"));
            assertThat(waits.getSize().getWidth()).isGreaterThan(200);
        });
        screenshot();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aWorkflowIsDrawnAsAGraphWithItsCriticalPathAndItsAttemptsOverTime() throws IOException {
        String pool = "dashboard-workflows";
        inputs.register(pool, "wf-1", Map.of(), 3);
        await().atMost(WAIT).until(() -> node.api.get("/v1/workers/wf-1?pool=" + pool).status() == 200);
        Api.Reply accepted = node.api.post("/v1/workflows", """
                {"pool":"%s","id":"etl","tasks":[
                  {"id":"extract"},
                  {"id":"transform","after":["extract"]},
                  {"id":"check","after":["extract"]},
                  {"id":"load","after":["transform","check"]}]}""".formatted(pool));
        assertThat(accepted.status()).as(accepted.toString()).isEqualTo(202);
        // extract runs and succeeds, transform runs long, check succeeds at once: load waits for transform.
        long generation = node.api.get("/v1/workers/wf-1?pool=" + pool).json().path("generation").asLong();
        finishWhenAssigned(pool, "etl:extract", generation);
        await().atMost(WAIT).until(() -> state("etl:check", pool).equals("ASSIGNED")
                && state("etl:transform", pool).equals("ASSIGNED"));
        inputs.start(pool, "etl:transform", 1, "wf-1", generation);
        finishWhenAssigned(pool, "etl:check", generation);

        browser.get(node.gateway.url() + "/#workflow=" + pool + "/etl");

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            Map<String, Object> drawn = workflow();
            assertThat((List<Object>) drawn.get("tasks"))
                    .containsExactly("etl:extract", "etl:check", "etl:transform", "etl:load");
            assertThat((List<?>) drawn.get("edges")).hasSize(4);
            assertThat((List<Object>) drawn.get("critical")).as("the long-running transform is on it, the quick check is not")
                    .contains("etl:extract", "etl:transform", "etl:load").doesNotContain("etl:check");
            assertThat(attribute("#workflow-graph [data-task='etl:load']", "data-state")).isEqualTo("BLOCKED");
            assertThat(attribute("#workflow-graph [data-task='etl:check']", "data-state")).isEqualTo("SUCCEEDED");
            assertThat(attribute("#workflow-graph [data-task='etl:transform']", "class")).contains("critical");
            assertThat(browser.findElements(By.cssSelector("#workflow-graph line.wf-edge.critical"))).hasSize(2);
            assertThat(browser.findElements(By.cssSelector("#workflow-gantt rect.wf-bar"))).as("three attempts so far")
                    .hasSize(3);
            assertThat(browser.findElements(By.cssSelector("#workflow-gantt rect.outcome-RUNNING"))).hasSize(1);
            assertThat(text("#workflow-state")).startsWith("RUNNING");
            assertThat(text("[data-pool='" + pool + "'] .pool-blocked")).as("load waits for its parents").isEqualTo("1");
        });
        screenshot("#workflow", "dashboard-workflow.png");
    }

    /** Once {@code task} is assigned to wf-1, its attempt 1 starts and succeeds. */
    private static void finishWhenAssigned(String pool, String task, long generation) {
        await().atMost(WAIT).until(() -> state(task, pool).equals("ASSIGNED"));
        inputs.start(pool, task, 1, "wf-1", generation);
        inputs.succeed(pool, task, 1, "wf-1", generation);
        await().atMost(WAIT).until(() -> state(task, pool).equals("SUCCEEDED"));
    }

    private static String state(String task, String pool) {
        return node.api.get("/v1/tasks/" + task + "?pool=" + pool).json().path("state").asText();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workflow() {
        Object drawn = ((JavascriptExecutor) browser).executeScript("return window.cronoqWorkflow;");
        assertThat(drawn).as("the workflow view drew").isNotNull();
        return (Map<String, Object>) drawn;
    }

    private static String attribute(String css, String name) {
        return browser.findElement(By.cssSelector(css)).getDomAttribute(name);
    }

    @Test
    void theTenantsPanelShowsWhatEachTenantHoldsAgainstItsShareAndQuota() throws IOException {
        String pool = "dashboard-tenants";
        inputs.register(pool, "cpu-3", Map.of(), 3);
        await().atMost(WAIT).until(() -> node.api.get("/v1/workers/cpu-3?pool=" + pool).status() == 200);
        Api.Reply set = node.api.put("/v1/pools/" + pool + "/tenants/research",
                "{\"weight\":2,\"quotas\":[{\"guaranteed\":1,\"max\":2}]}");
        assertThat(set.status()).as(set.toString()).isEqualTo(202);
        for (String id : List.of("r1", "r2", "r3")) {
            submitFor(pool, id, "research");
        }
        submitFor(pool, "d1", null);
        await().atMost(WAIT).until(() -> node.api.get("/v1/tasks/d1").json().path("state").asText().equals("ASSIGNED"));

        browser.get(node.gateway.url() + "/");

        String research = "[data-tenants='" + pool + "'] tr[data-tenant='research']";
        String fallback = "[data-tenants='" + pool + "'] tr[data-tenant='default']";
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(text(research + " .tenant-weight")).isEqualTo("2");
            assertThat(text(research + " .tenant-in-use")).as("at its max of 2").isEqualTo("2");
            assertThat(text(research + " .tenant-fair-share")).as("3 slots x 2 / (2 + 1)").isEqualTo("2");
            assertThat(text(research + " .tenant-quotas")).isEqualTo("pool: 2 in use · 1 guaranteed · max 2");
            assertThat(text(research + " .tenant-waiting")).as("r3 waits for its max").isEqualTo("1");
            assertThat(text(research + " .tenant-oldest")).isNotEqualTo("—");
            assertThat(text(fallback + " .tenant-in-use")).isEqualTo("1");
            assertThat(text(fallback + " .tenant-fair-share")).isEqualTo("1");
            assertThat(text(fallback + " .tenant-waiting")).isEqualTo("0");
            assertThat(text(fallback + " .tenant-oldest")).isEqualTo("—");
        });
        screenshot("[data-pool='" + pool + "']", "dashboard-tenants.png");
    }

    @Test
    void theLimitsPanelShowsTheRatesAndTheBusiestKeysAndATaskItsLimits() throws IOException {
        String pool = "dashboard-limits";
        inputs.register(pool, "cpu-4", Map.of(), 4);
        await().atMost(WAIT).until(() -> node.api.get("/v1/workers/cpu-4?pool=" + pool).status() == 200);
        Api.Reply key = node.api.put("/v1/pools/" + pool + "/limits/keys", "{\"key\":\"customer-1\",\"max\":1}");
        Api.Reply rate = node.api.put("/v1/pools/" + pool + "/limits/rates/openai", "{\"perSecond\":0.001,\"burst\":1}");
        assertThat(key.status()).as(key.toString()).isEqualTo(202);
        assertThat(rate.status()).as(rate.toString()).isEqualTo(202);
        for (String id : List.of("k1", "k2")) {
            submitWith(pool, id, "\"concurrency\":[{\"key\":\"customer-1\"}]");
        }
        for (String id : List.of("o1", "o2")) {
            submitWith(pool, id, "\"rateLimits\":[{\"name\":\"openai\"}]");
        }
        await().atMost(WAIT).until(() -> node.api.get("/v1/tasks/o2?pool=" + pool).json().path("waiting")
                .path("reason").asText().startsWith("rate limit openai"));

        browser.get(node.gateway.url() + "/");

        String panel = "[data-limits='" + pool + "']";
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(text("[data-pool='" + pool + "'] .pool-held")).as("k2 and o2").isEqualTo("2");
            assertThat(text(panel + " tr[data-rate='openai'] .rate-available")).as("o1 took the one unit")
                    .isEqualTo("0 / 1");
            assertThat(text(panel + " tr[data-rate='openai'] .rate-per-second")).isEqualTo("0.001/s");
            assertThat(text(panel + " tr[data-rate='openai'] .rate-held-back")).isEqualTo("1");
            assertThat(text(panel + " tr[data-key='customer-1'] .key-running")).isEqualTo("1");
            assertThat(text(panel + " tr[data-key='customer-1'] .key-limit")).isEqualTo("1");
            assertThat(text(panel + " tr[data-key='customer-1'] .key-held-back")).isEqualTo("1");
            assertThat(browser.findElement(By.cssSelector(panel + " tr[data-key='customer-1']")).getDomAttribute("class"))
                    .isEqualTo("at-limit");
        });
        screenshot(panel, "dashboard-limits.png");

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                browser.findElement(By.cssSelector("#waiting tr[data-task='k2']")).click());
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(text("#task-detail-id")).isEqualTo("k2");
            assertThat(text("#task-detail-fields [data-field='concurrency']")).isEqualTo("customer-1");
            assertThat(text("#task-detail-fields [data-field='waiting']"))
                    .startsWith("concurrency key customer-1: 1/1 running");
        });
    }

    @Test
    void aGatewayStartedLaterRebuildsTheSameMinutesFromTheJournal() throws IOException {
        String pool = "dashboard-restart";
        inputs.register(pool, "gpu-9", Map.of("gpu", "l4"), 1);
        submit(pool, "r1", "l4");
        submit(pool, "r2", "l4");
        await().atMost(WAIT).until(() -> node.api.get("/v1/tasks/r1").json().path("state").asText().equals("ASSIGNED"));
        String path = "/v1/history?pool=" + pool + "&minutes=3";
        await().atMost(WAIT).ignoreExceptions().until(() -> node.api.get(path).json().path("total").path("waiting")
                .path(2).asLong() == 1);

        try (GatewayServer later = GatewayServer.start(node.app, 0)) {
            Api api = new Api(later.url());
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
                JsonNode first = node.api.get(path).json();
                JsonNode second = api.get(path).json();
                assertThat(second.path("start")).as(second.toString()).isEqualTo(first.path("start"));
                for (String series : List.of("capacity", "busy", "workers", "waiting", "placed", "waitP50Ms",
                        "waitP90Ms", "waitP99Ms")) {
                    assertThat(second.path("total").path(series)).as(series).isEqualTo(first.path("total").path(series));
                    assertThat(second.path("groups").path(0).path("series").path(series)).as(series)
                            .isEqualTo(first.path("groups").path(0).path("series").path(series));
                }
                assertThat(second.path("groups").path(0).path("key").asText()).isEqualTo("gpu=l4");
                assertThat(second.path("total").path("busy").path(2).asInt()).isEqualTo(1);
                assertThat(second.path("total").path("waiting").path(2).asInt()).isEqualTo(1);
            });
        }
    }

    @Test
    void aWaitingGangIsListedWithItsReasonAndAMemberShowsItsPlaceInTheGang() {
        String pool = "dashboard-gangs";
        inputs.register(pool, "gang-w1", Map.of("rack", "a"), 2);
        Api.Reply reply = node.api.post("/v1/gangs", ("{\"pool\":\"%s\",\"id\":\"train\",\"size\":3,"
                + "\"placement\":\"spread\",\"task\":{}}").formatted(pool));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(202);
        browser.get(node.gateway.url() + "/");

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            String row = text("#gangs tr[data-task='train-0']");
            assertThat(row).contains("train").contains(pool).contains("3").contains("spread")
                    .contains("gang train needs 3 slots, one per worker (spread)");
        });
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                browser.findElement(By.cssSelector("#waiting tr[data-task='train-1']")).click());
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertThat(text("#task-detail-fields [data-field='gang']")).isEqualTo("train: member 1 of 3 (spread)"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theBacklogChartShowsWhenWaitingTasksStartAndATaskItsEstimate() throws IOException {
        String pool = "dashboard-eta";
        inputs.register(pool, "cpu-eta", Map.of(), 1);
        for (String id : new String[] {"eta-1", "eta-2", "eta-3"}) {
            submitWith(pool, id, "\"timeout\":\"PT60S\"");
        }
        await().atMost(WAIT).until(() -> node.api.get("/v1/tasks/eta-1").json().path("state").asText().equals("ASSIGNED"));
        browser.get(node.gateway.url() + "/");

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            Map<String, Object> forecast = (Map<String, Object>) script("return window.cronoqForecast[arguments[0]]", pool);
            assertThat(((Number) forecast.get("waiting")).longValue()).isEqualTo(2);
            List<Map<String, Object>> bins = (List<Map<String, Object>>) forecast.get("backlog");
            assertThat(bins.stream().mapToLong(b -> ((Number) b.get("starting")).longValue()).sum())
                    .as("both waiting tasks start within the chart").isEqualTo(2);
            WebElement chart = browser.findElement(By.cssSelector("[data-chart='" + pool + "/forecast']"));
            assertThat(chart.getDomAttribute("data-still-waiting")).as("none waits at the chart's end").isEqualTo("0");
            assertThat(chart.findElement(By.tagName("canvas")).getSize().getWidth()).isGreaterThan(200);
            assertThat(text("[data-forecast='" + pool + "']")).contains("next: eta-2 at");
        });
        screenshot("#forecast", "dashboard-forecast.png");

        // The waiting table is redrawn every second: a row found may be replaced before the click lands.
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                browser.findElement(By.cssSelector("#waiting tr[data-task='eta-3']")).click());
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            assertThat(text("#task-detail-fields [data-field='starts']")).endsWith(", 1 ahead");
            assertThat(text("#task-detail-fields [data-field='estimate']"))
                    .isEqualTo("1 ahead on unlabeled workers; run times taken at the declared timeouts");
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

    /** Submits a task of {@code pool} for {@code tenant} ({@code null}: the task names none). */
    private static void submitFor(String pool, String id, String tenant) {
        Api.Reply reply = node.api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"%s\"%s}".formatted(pool, id,
                tenant == null ? "" : ",\"tenant\":\"" + tenant + "\""));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(202);
    }

    /** Submits a task of {@code pool} with more fields (a JSON fragment). */
    private static void submitWith(String pool, String id, String fields) {
        Api.Reply reply = node.api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"%s\",%s}".formatted(pool, id, fields));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(202);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> plotted(String groupKey) {
        List<Map<String, Object>> groups = (List<Map<String, Object>>) script(
                "return window.cronoqHistory[arguments[0]].groups", POOL);
        Map<String, Object> group = groups.stream().filter(g -> groupKey.equals(g.get("key"))).findFirst()
                .orElseThrow(() -> new AssertionError("no chart of group '" + groupKey + "' yet"));
        return (Map<String, Object>) group.get("series");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> total() {
        return (Map<String, Object>) script("return window.cronoqHistory[arguments[0]].total", POOL);
    }

    private static Object last(Map<String, Object> series, String name) {
        List<?> values = (List<?>) series.get(name);
        return values.get(values.size() - 1);
    }

    private static Object script(String code, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(code, args);
    }

    /** Saves the page, charts included, for people to look at. */
    private static void screenshot() throws IOException {
        screenshot("#history", "dashboard-charts.png");
    }

    /** Saves the page scrolled to the element {@code css} selects as {@code file}, for people to look at. */
    private static void screenshot(String css, String file) throws IOException {
        ((JavascriptExecutor) browser).executeScript(
                "window.scrollTo(0, document.querySelector(arguments[0]).getBoundingClientRect().top"
                        + " + window.scrollY - 40)", css);
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Path target = Path.of(System.getProperty("cronoq.screenshots", "target"), file);
        Files.createDirectories(target.getParent());
        Files.write(target, png);
    }

    private static String group(String key) {
        return "[data-pool='" + POOL + "'] [data-group='" + key + "']";
    }

    private static String text(String css) {
        return browser.findElement(By.cssSelector(css)).getText();
    }
}
