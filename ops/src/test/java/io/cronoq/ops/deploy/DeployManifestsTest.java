package io.cronoq.ops.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.cronoq.events.JournalEntry;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.policy.GroupSnapshot;
import io.cronoq.scheduler.policy.PoolSnapshot;
import io.cronoq.scheduler.query.PoolState;
import io.cronoq.scheduler.topology.SchedulerTopology;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubernetes manifests and the Grafana dashboard in {@code ops/deploy}: every YAML document
 * parses and hangs together (the StatefulSet, the Services and what they select, one worker
 * Deployment per label set, one ScaledObject per Deployment querying that very group), the
 * scheduler's config file is one the real {@code cronoq scheduler} accepts, and every metric the
 * ScaledObjects and the dashboard use is one the gateway really exposes.
 *
 * <p>The exposed metrics come from the gateway's own code, not from a list kept here: the test
 * builds the gateway's {@code GatewayMetrics} (its Prometheus registry, with Micrometer's
 * {@code KafkaStreamsMetrics} bound to a real, unstarted Kafka Streams client of the real scheduler
 * topology), fills its {@code PoolGauges} with a pool and a group, feeds its {@code JournalMeter} a
 * journal recorded by the real placement policy (the replay tests' fixture), and scrapes the
 * registry in the Prometheus text format. No broker is needed: nothing connects.
 */
class DeployManifestsTest {

    private static final Path DEPLOY = locate("ops/deploy");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();

    /** Metric name to the label names it carries, as scraped from the gateway's registry. */
    private static Map<String, Set<String>> exposed;
    private static List<JsonNode> docs;

    @TempDir
    static Path temp;

    // ---- the exposed metrics ----------------------------------------------------------------------

    @BeforeAll
    static void load() throws Exception {
        docs = readManifests();
        exposed = scrapeGatewayMetrics(temp);
    }

    private static Map<String, Set<String>> scrapeGatewayMetrics(Path dir) throws Exception {
        SchedulerConfig config = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), "localhost:1", // never contacted: nothing is started
                SchedulerConfig.STATE_DIR.name(), dir.resolve("state").toString()));
        Topics topics = Topics.defaults(new InMemorySchemaRegistry());
        try (KafkaStreams streams = new KafkaStreams(SchedulerTopology.build(topics),
                SchedulerApp.streamsProperties(config))) {
            Class<?> metricsClass = Class.forName("io.cronoq.gateway.GatewayMetrics");
            Class<?> localReader = Class.forName("io.cronoq.gateway.LocalStateReader");
            Constructor<?> ctor = metricsClass.getDeclaredConstructor(KafkaStreams.class, localReader, Clock.class);
            ctor.setAccessible(true);
            AutoCloseable metrics = (AutoCloseable) ctor.newInstance(streams, null, Clock.systemUTC());
            try {
                PrometheusMeterRegistry registry = (PrometheusMeterRegistry) call(metrics, "registry");

                // The pool and group gauges, as a scrape refreshes them from the stores.
                Object gauges = field(metrics, "gauges");
                Instant now = Instant.now();
                GroupSnapshot group = new GroupSnapshot(Map.of("gpu", "a100"), 4, 3, 1, 2, 1);
                PoolState pool = new PoolState(new PoolSnapshot("inference", 4, 3, 2, List.of(group), 1),
                        List.of(new PoolState.GroupState(group, "gpu=a100", 5, now.minusSeconds(7))),
                        List.of(), 5, 1, now.minusSeconds(7), null, 0, null);
                Method update = gauges.getClass().getDeclaredMethod("update", List.class, Instant.class);
                update.setAccessible(true);
                update.invoke(gauges, List.of(pool), now);

                // The journal counters and the dead-letter gauge, fed a journal the real policy recorded.
                Class<?> meterClass = Class.forName("io.cronoq.gateway.JournalMeter");
                Constructor<?> meterCtor = meterClass.getDeclaredConstructor(
                        io.micrometer.core.instrument.MeterRegistry.class, Supplier.class, IntSupplier.class);
                meterCtor.setAccessible(true);
                Supplier<Set<Integer>> owned = () -> Set.of(0, 1, 2, 3, 4, 5);
                IntSupplier partitions = () -> 6;
                Object meter = meterCtor.newInstance(registry, owned, partitions);
                Method count = meterClass.getDeclaredMethod("count", JournalEntry.class);
                count.setAccessible(true);
                for (JournalEntry entry : recordedJournal()) {
                    count.invoke(meter, entry);
                }
                String scrape = registry.scrape();
                return parse(scrape);
            } finally {
                metrics.close();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<JournalEntry> recordedJournal() throws Exception {
        Method smallDay = Class.forName("io.cronoq.ops.replay.Fixtures").getDeclaredMethod("smallDay");
        smallDay.setAccessible(true);
        return (List<JournalEntry>) smallDay.invoke(null);
    }

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)\\})?\\s");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    /** Metric names and their label names from a scrape in the Prometheus text format. */
    static Map<String, Set<String>> parse(String scrape) {
        Map<String, Set<String>> metrics = new TreeMap<>();
        for (String line : scrape.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (line.startsWith("#") || !m.find()) {
                continue;
            }
            Set<String> labels = metrics.computeIfAbsent(m.group(1), k -> new TreeSet<>());
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.add(l.group(1));
                }
            }
        }
        return metrics;
    }

    @Test
    void theGatewayExposesWhatTheDashboardIsAbout() {
        assertThat(exposed).containsKeys("cronoq_pool_capacity", "cronoq_group_demand",
                "cronoq_group_oldest_waiting_seconds", "cronoq_placements_total", "cronoq_tasks_completed_total",
                "cronoq_dead_letters", "kafka_stream_thread_commit_latency_avg", "kafka_stream_thread_process_rate");
        assertThat(exposed.get("cronoq_group_demand")).contains("pool", "group");
    }

    @Test
    void everyMetricTheScaledObjectsQueryExists() {
        List<String> queries = ofKind("ScaledObject").flatMap(so -> stream(so.path("spec").path("triggers")))
                .map(t -> t.path("metadata").path("query").asText()).toList();
        assertThat(queries).isNotEmpty();
        for (String query : queries) {
            assertExists(query, "ScaledObject query");
        }
    }

    @Test
    void everyMetricTheDashboardUsesExists() throws IOException {
        JsonNode dashboard = JSON.readTree(DEPLOY.resolve("grafana/cronoq.json").toFile());
        List<String> exprs = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> exprs.add(e.asText()));
        assertThat(exprs).hasSizeGreaterThan(10);
        Set<String> shown = new TreeSet<>();
        exprs.forEach(e -> shown.addAll(metricNames(e)));
        assertThat(shown).as("what the dashboard is for").contains(
                "cronoq_pool_capacity", "cronoq_pool_busy", "cronoq_pool_waiting", "cronoq_pool_oldest_waiting_seconds",
                "cronoq_pool_demand", "cronoq_group_capacity", "cronoq_group_busy", "cronoq_group_waiting",
                "cronoq_group_oldest_waiting_seconds", "cronoq_group_demand", "cronoq_placements_total",
                "cronoq_tasks_completed_total", "cronoq_attempts_finished_total", "cronoq_dead_letters",
                "kafka_stream_thread_commit_latency_avg", "kafka_stream_thread_process_rate");
        for (String expr : exprs) {
            assertExists(expr, "dashboard expression");
        }
        // Legends and groupings name labels the selected metrics carry (or that Prometheus adds to every target).
        Pattern legendLabel = Pattern.compile("\\{\\{\\s*(\\w+)\\s*\\}\\}");
        Pattern grouping = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");
        for (JsonNode target : dashboard.findParents("expr")) {
            String expr = target.path("expr").asText();
            Set<String> available = new TreeSet<>(Set.of("instance", "job", "pod", "namespace"));
            metricNames(expr).forEach(name -> available.addAll(exposed.get(name)));
            Set<String> used = new TreeSet<>();
            Matcher legend = legendLabel.matcher(target.path("legendFormat").asText());
            while (legend.find()) {
                used.add(legend.group(1));
            }
            Matcher by = grouping.matcher(expr);
            while (by.find()) {
                for (String label : by.group(1).split(",")) {
                    used.add(label.trim());
                }
            }
            assertThat(available).as("labels used by %s (legend %s)", expr, target.path("legendFormat"))
                    .containsAll(used);
        }
        Pattern labelValues = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*(\\{[^}]*\\})?\\s*,\\s*(\\w+)\\s*\\)");
        int variables = 0;
        for (JsonNode var : dashboard.path("templating").path("list")) {
            if (!var.path("type").asText().equals("query")) {
                continue;
            }
            Matcher m = labelValues.matcher(var.path("definition").asText());
            assertThat(m.find()).as("variable %s: label_values(metric, label)", var.path("name")).isTrue();
            assertThat(exposed).as("variable %s", var.path("name")).containsKey(m.group(1));
            assertThat(exposed.get(m.group(1))).as("variable %s", var.path("name")).contains(m.group(3));
            variables++;
        }
        assertThat(variables).isEqualTo(2);
        // Every panel names a title and draws from the Prometheus datasource variable.
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(panel.path("title").asText()).isNotBlank();
        }
    }

    private static final Set<String> PROMQL_WORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan");

    /** Asserts that every metric a PromQL expression selects exists, with every label it matches on. */
    private static void assertExists(String expr, String what) {
        Set<String> names = metricNames(expr);
        assertThat(names).as("%s %s selects some metric", what, expr).isNotEmpty();
        for (String name : names) {
            assertThat(exposed).as("%s %s: the gateway exposes no metric %s", what, expr, name).containsKey(name);
        }
        Matcher selector = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)\\}").matcher(expr);
        while (selector.find()) {
            Matcher label = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)").matcher(selector.group(2).replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\""));
            while (label.find()) {
                assertThat(exposed.get(selector.group(1))).as("%s %s: labels of %s", what, expr, selector.group(1))
                        .contains(label.group(1));
            }
        }
    }

    /**
     * The metric names in a PromQL expression: its identifiers once strings, label matchers, range
     * selectors, grouping clauses, dashboard variables, function names and keywords are removed.
     */
    static Set<String> metricNames(String expr) {
        String e = expr.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")
                .replaceAll("\\{[^}]*\\}", " ")
                .replaceAll("\\[[^\\]]*\\]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
                .replaceAll("\\$\\{?\\w+\\}?", " ");
        Matcher m = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?").matcher(e);
        Set<String> names = new LinkedHashSet<>();
        while (m.find()) {
            int start = m.start();
            boolean partOfNumber = start > 0 && (Character.isDigit(e.charAt(start - 1)) || e.charAt(start - 1) == '.');
            if (m.group(2) == null && !partOfNumber && !PROMQL_WORDS.contains(m.group(1).toLowerCase())) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    @Test
    void theMetricExtractionSeesEveryName() {
        assertThat(metricNames("sum by (pool, group) (rate(cronoq_placements_total{pool=~\"$pool\"}[$__rate_interval]))"))
                .containsExactly("cronoq_placements_total");
        assertThat(metricNames("sum(a_b{x=\"y\"}) / clamp_min(sum by (pool) (c_d), 1) > 0.5"))
                .containsExactly("a_b", "c_d");
        assertThat(metricNames("max(cronq_dead_letters)")).containsExactly("cronq_dead_letters");
    }

    // ---- the manifests ----------------------------------------------------------------------------

    @Test
    void everyDocumentIsAKubernetesObjectAndKustomizeListsEveryFile() throws IOException {
        for (JsonNode doc : docs) {
            assertThat(doc.path("apiVersion").asText()).as(doc.toString()).isNotBlank();
            assertThat(doc.path("kind").asText()).as(doc.toString()).isNotBlank();
            assertThat(doc.path("metadata").path("name").asText()).as(doc.toString()).isNotBlank();
        }
        JsonNode kustomization = YAML.readTree(DEPLOY.resolve("kustomization.yaml").toFile());
        Set<String> listed = new TreeSet<>();
        kustomization.path("resources").forEach(r -> listed.add(r.asText()));
        assertThat(listed).containsExactlyInAnyOrderElementsOf(manifestFiles().stream()
                .map(p -> DEPLOY.relativize(p).toString()).filter(p -> !p.equals("kustomization.yaml")).toList());
        for (JsonNode generator : kustomization.path("configMapGenerator")) {
            generator.path("files").forEach(f -> assertThat(DEPLOY.resolve(f.asText())).exists());
        }
        assertThat(docs.stream().map(d -> d.path("kind").asText()).collect(Collectors.toSet()))
                .contains("StatefulSet", "Service", "ConfigMap", "Deployment", "ScaledObject", "ServiceMonitor");
    }

    @Test
    void theSchedulerIsAStatefulSetWithStateVolumeProbesAndAGracefulShutdown() {
        List<JsonNode> sets = ofKind("StatefulSet").toList();
        assertThat(sets).hasSize(1);
        JsonNode spec = sets.get(0).path("spec");
        JsonNode pod = spec.path("template").path("spec");
        JsonNode container = pod.path("containers").get(0);

        assertThat(spec.path("volumeClaimTemplates")).hasSize(1);
        String claim = spec.path("volumeClaimTemplates").get(0).path("metadata").path("name").asText();
        String stateMount = stream(container.path("volumeMounts"))
                .filter(m -> m.path("name").asText().equals(claim)).findFirst().orElseThrow()
                .path("mountPath").asText();
        String script = String.join(" ", strings(container.path("command")));
        assertThat(script).contains("cronoq scheduler", "--bootstrap", "--port 8080", "--state-dir " + stateMount,
                "--config");

        assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/readyz");
        assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/healthz");
        assertThat(container.path("resources").path("requests").path("memory").asText()).isNotBlank();
        assertThat(pod.path("terminationGracePeriodSeconds").asInt()).isGreaterThanOrEqualTo(30);

        // The headless Service the StatefulSet names gives each pod its stable DNS name.
        JsonNode headless = ofKind("Service").filter(s -> s.path("metadata").path("name").asText()
                .equals(spec.path("serviceName").asText())).findFirst().orElseThrow();
        assertThat(headless.path("spec").path("clusterIP").asText()).isEqualTo("None");
        Map<String, String> env = new HashMap<>();
        container.path("env").forEach(v -> env.put(v.path("name").asText(), v.path("value").asText()));
        assertThat(env.get("CRONOQ_APPLICATION_SERVER"))
                .isEqualTo("$(POD_NAME)." + headless.path("metadata").path("name").asText() + ".$(NAMESPACE).svc:8080");
    }

    @Test
    void theSchedulerConfigIsOneCronoqSchedulerAccepts() throws Exception {
        JsonNode configMap = ofKind("ConfigMap").filter(c -> c.path("data").has("cronoq.toml")).findFirst().orElseThrow();
        // As the container does: this pod's application.server first, then the ConfigMap's file.
        Path file = temp.resolve("cronoq.toml");
        Files.writeString(file, "cronoq.application.server = \"cronoq-scheduler-0.cronoq-scheduler.cronoq.svc:8080\"\n"
                + configMap.path("data").path("cronoq.toml").asText());
        Method read = Class.forName("io.cronoq.ops.ConfigFile").getDeclaredMethod("read", Path.class);
        read.setAccessible(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> settings = (Map<String, Object>) read.invoke(null, file);
        SchedulerConfig config = SchedulerConfig.of(settings); // unknown cronoq.* keys and bad values throw

        assertThat(config.getInt(SchedulerConfig.STANDBY_REPLICAS)).isEqualTo(1);
        assertThat(config.getInt(SchedulerConfig.SESSION_TIMEOUT_MS)).as("failover after a crash within seconds")
                .isLessThanOrEqualTo(10_000);
        assertThat(config.getInt(SchedulerConfig.HEARTBEAT_INTERVAL_MS) * 3)
                .isLessThanOrEqualTo(config.getInt(SchedulerConfig.SESSION_TIMEOUT_MS));
        // Every pod reads this file: a static membership id in it would be shared by live instances.
        assertThat(config.get(SchedulerConfig.INSTANCE_ID)).as("cronoq.instance.id in the shared ConfigMap").isEmpty();
        assertThat(config.getInt(SchedulerConfig.COMMIT_INTERVAL_MS)).isPositive();
        assertThat(config.get(SchedulerConfig.TOPIC_PREFIX)).isEqualTo("cronoq.");
        assertThat(config.get(SchedulerConfig.HTTP_BIND)).as("a pod's gateway listens on every interface")
                .isEqualTo("0.0.0.0");
        assertThat(config.get(SchedulerConfig.APPLICATION_SERVER))
                .isEqualTo("cronoq-scheduler-0.cronoq-scheduler.cronoq.svc:8080");
        // The StatefulSet mounts this ConfigMap.
        JsonNode pod = ofKind("StatefulSet").findFirst().orElseThrow().path("spec").path("template").path("spec");
        assertThat(stream(pod.path("volumes")).map(v -> v.path("configMap").path("name").asText()))
                .contains(configMap.path("metadata").path("name").asText());
    }

    @Test
    void servicesAndTheServiceMonitorSelectExistingPods() {
        List<Map<String, String>> podLabels = Stream.concat(ofKind("StatefulSet"), ofKind("Deployment"))
                .map(w -> labels(w.path("spec").path("template").path("metadata").path("labels"))).toList();
        List<JsonNode> services = ofKind("Service").toList();
        assertThat(services.stream().map(s -> s.path("metadata").path("name").asText()))
                .contains("cronoq-scheduler", "cronoq-gateway");
        for (JsonNode service : services) {
            Map<String, String> selector = labels(service.path("spec").path("selector"));
            assertThat(selector).as("service %s", service.path("metadata").path("name")).isNotEmpty();
            assertThat(podLabels).as("pods selected by service %s", service.path("metadata").path("name"))
                    .anyMatch(l -> l.entrySet().containsAll(selector.entrySet()));
            for (JsonNode port : service.path("spec").path("ports")) {
                assertThat(port.path("targetPort").asText()).isEqualTo("http");
            }
        }
        for (JsonNode workload : Stream.concat(ofKind("StatefulSet"), ofKind("Deployment")).toList()) {
            assertThat(labels(workload.path("spec").path("template").path("metadata").path("labels")).entrySet())
                    .as("%s: the selector matches the pod template", workload.path("metadata").path("name"))
                    .containsAll(labels(workload.path("spec").path("selector").path("matchLabels")).entrySet());
        }
        for (JsonNode monitor : ofKind("ServiceMonitor").toList()) {
            Map<String, String> selector = labels(monitor.path("spec").path("selector").path("matchLabels"));
            List<JsonNode> selected = services.stream().filter(s -> labels(s.path("metadata").path("labels"))
                    .entrySet().containsAll(selector.entrySet())).toList();
            assertThat(selected).as("the ServiceMonitor scrapes each scheduler pod once: one Service").hasSize(1);
            String port = monitor.path("spec").path("endpoints").get(0).path("port").asText();
            assertThat(stream(selected.get(0).path("spec").path("ports")).map(p -> p.path("name").asText()))
                    .contains(port);
        }
    }

    @Test
    void oneWorkerDeploymentPerLabelSetEachScaledOnItsOwnGroupsDemand() {
        List<JsonNode> workers = ofKind("Deployment").filter(d -> strings(d.path("spec").path("template")
                .path("spec").path("containers").get(0).path("command")).contains("worker")).toList();
        assertThat(workers).hasSizeGreaterThanOrEqualTo(2);
        Set<String> groups = new TreeSet<>();
        List<JsonNode> scaled = ofKind("ScaledObject").toList();
        for (JsonNode deployment : workers) {
            String name = deployment.path("metadata").path("name").asText();
            JsonNode pod = deployment.path("spec").path("template").path("spec");
            List<String> args = strings(pod.path("containers").get(0).path("command"));
            String pool = after(args, "--pool").get(0);
            String group = after(args, "--label").stream().sorted().collect(Collectors.joining(","));
            String slots = after(args, "--slots").get(0);
            assertThat(groups.add(pool + "/" + group)).as("%s: one Deployment per label set", name).isTrue();
            assertThat(args).as("%s: a command after --", name).contains("--");
            assertThat(pod.path("terminationGracePeriodSeconds").asInt()).as("%s: time to drain", name)
                    .isGreaterThanOrEqualTo(60);

            List<JsonNode> mine = scaled.stream().filter(s -> s.path("spec").path("scaleTargetRef").path("name")
                    .asText().equals(name)).toList();
            assertThat(mine).as("%s: one ScaledObject", name).hasSize(1);
            JsonNode trigger = mine.get(0).path("spec").path("triggers").get(0);
            assertThat(trigger.path("type").asText()).isEqualTo("prometheus");
            String query = trigger.path("metadata").path("query").asText();
            assertThat(query).as("%s scales on its own group's demand", name)
                    .contains("cronoq_group_demand").contains("pool=\"" + pool + "\"").contains("group=\"" + group + "\"");
            assertThat(trigger.path("metadata").path("threshold").asText()).as("%s: one pod's slots", name)
                    .isEqualTo(slots);
            assertThat(mine.get(0).path("spec").path("minReplicaCount").asInt())
                    .as("%s: a group exists only while it has a worker", name).isGreaterThanOrEqualTo(1);
        }
        for (JsonNode so : scaled) {
            String target = so.path("spec").path("scaleTargetRef").path("name").asText();
            assertThat(so.path("spec").path("scaleTargetRef").path("kind").asText("Deployment")).isEqualTo("Deployment");
            assertThat(workers.stream().map(w -> w.path("metadata").path("name").asText()))
                    .as("ScaledObject %s targets an existing worker Deployment", so.path("metadata").path("name"))
                    .contains(target);
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static List<Path> manifestFiles() throws IOException {
        try (Stream<Path> files = Files.walk(DEPLOY)) {
            return files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
        }
    }

    private static List<JsonNode> readManifests() throws IOException {
        List<JsonNode> all = new ArrayList<>();
        YAMLFactory factory = YAML.getFactory();
        for (Path file : manifestFiles()) {
            if (file.getFileName().toString().equals("kustomization.yaml")) {
                continue;
            }
            try (var parser = factory.createParser(file.toFile())) {
                var values = YAML.readValues(parser, JsonNode.class);
                while (values.hasNext()) {
                    JsonNode doc = values.next();
                    if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                        all.add(doc);
                    }
                }
            }
        }
        assertThat(all).isNotEmpty();
        return all;
    }

    private static Stream<JsonNode> ofKind(String kind) {
        return docs.stream().filter(d -> d.path("kind").asText().equals(kind));
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> items = new ArrayList<>();
        array.forEach(items::add);
        return items.stream();
    }

    private static List<String> strings(JsonNode array) {
        return stream(array).map(JsonNode::asText).toList();
    }

    private static List<String> after(List<String> args, String flag) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < args.size() - 1 && !args.get(i).equals("--"); i++) {
            if (args.get(i).equals(flag)) {
                values.add(args.get(i + 1));
            }
        }
        return values;
    }

    private static Map<String, String> labels(JsonNode node) {
        Map<String, String> labels = new TreeMap<>();
        node.fields().forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
        return labels;
    }

    private static Object call(Object target, String method, Object... args) throws Exception {
        for (Method m : target.getClass().getDeclaredMethods()) {
            if (m.getName().equals(method) && m.getParameterCount() == args.length) {
                m.setAccessible(true);
                return m.invoke(target, args);
            }
        }
        throw new NoSuchMethodException(target.getClass() + "." + method);
    }

    private static Object field(Object target, String name) throws Exception {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    private static Path locate(String relative) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        throw new IllegalStateException(relative + " not found above " + Path.of("").toAbsolutePath());
    }
}
