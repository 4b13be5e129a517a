package io.cronoq.gateway;

import static io.cronoq.gateway.BodyFields.closed;
import static io.cronoq.gateway.BodyFields.closedObjects;
import static io.cronoq.gateway.BodyFields.integer;
import static io.cronoq.gateway.BodyFields.labels;
import static io.cronoq.gateway.BodyFields.optionalText;
import static io.cronoq.gateway.BodyFields.read;
import static io.cronoq.gateway.BodyFields.requiredText;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.Dependency;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.Preference;
import io.cronoq.events.Priority;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.InvalidInputException;
import io.cronoq.schemas.rules.Quantities;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Reads the JSON body of {@code POST /v1/tasks} into a {@link TaskSubmitted}: shapes and formats
 * (ISO-8601 times, Kubernetes quantities) are checked here, every other rule by {@link Rules} — the
 * rules the scheduler applies — and any failure is a 400 naming the field as the body spells it.
 * The body is read exactly by {@link JsonBody} (UTF-8 only, nothing after the object, exact
 * numbers), and no input, however hostile, is a 500: what the parser did not foresee is a 400 for
 * the field it was reading.
 */
final class SubmissionParser {

    /** A quantity given as a JSON number is at most this large (Kubernetes' own limit is 2^63-1 milli-units). */
    private static final BigDecimal MAX_NUMBER_QUANTITY = new BigDecimal("1e18");
    /** ... and has at most this many decimals (nano-units, Kubernetes' finest). */
    private static final int MAX_NUMBER_QUANTITY_DECIMALS = 9;

    static final List<String> FIELDS = List.of("pool", "id", "labels", "resources", "payload", "payloadBase64",
            "priority", "deadline", "notBefore", "startAt", "tolerance", "maxAttempts", "backoff", "maxBackoff", "timeout", "prefer", "submitter",
            "tenant", "concurrency", "rateLimits", "after", "onParentUnmet");
    static final List<String> PARENT_FIELDS = List.of("task", "pool", "when");
    static final List<String> CONCURRENCY_FIELDS = List.of("key", "max");
    static final List<String> RATE_LIMIT_FIELDS = List.of("name", "units");
    static final List<String> RESOURCE_FIELDS = List.of("cpu", "memory", "disk", "gpu", "packages");
    private static final Set<String> PREFERENCE_FIELDS = Set.of("labels", "weight");

    /**
     * The fields a task's view shows that the server sets, each with who sets it from what: a body naming one is
     * refused (a task read back and sent again learns which of its fields are not the submission's).
     */
    static final Map<String, String> SERVER_FIELDS = BodyFields.serverFields(
            "state", "the scheduler keeps a task's state (a new task is WAITING)",
            "submittedAt", "the gateway stamps it with its clock when it accepts the task",
            "updatedAt", "the scheduler stamps it whenever the task changes",
            "payloadBytes", "the gateway counts the bytes of payload or payloadBase64",
            "waiting", "the scheduler says why and since when a task waits",
            "attempts", "the scheduler records each attempt it assigns",
            "gang", "the scheduler sets it on each member of a gang submitted with POST /v1/gangs",
            "unmetParents", "the scheduler counts the parents a blocked task still waits for",
            "workflow", "the gateway sets it on each task of a workflow submitted with POST /v1/workflows");
    /** Who sets {@code submitter} when the gateway checks tokens. */
    static final String SUBMITTER_FROM_CREDENTIAL = "with tokens configured the gateway takes it from the calling "
            + "credential";

    /** Avro/rule field names as the HTTP body spells them. */
    private static final Map<String, String> BODY_NAMES = new LinkedHashMap<>();

    static {
        BODY_NAMES.put("taskId", "id");
        BODY_NAMES.put("timeoutMs", "timeout");
        BODY_NAMES.put("startToleranceMs", "tolerance");
        BODY_NAMES.put("retry.maxAttempts", "maxAttempts");
        BODY_NAMES.put("retry.initialBackoffMs", "backoff");
        BODY_NAMES.put("retry.maxBackoffMs", "maxBackoff");
        BODY_NAMES.put("resources.cpuMillis", "resources.cpu");
        BODY_NAMES.put("resources.memoryBytes", "resources.memory");
        BODY_NAMES.put("resources.diskBytes", "resources.disk");
    }

    private final Supplier<Instant> clock;

    SubmissionParser(Supplier<Instant> clock) {
        this.clock = clock;
    }

    /** The task this text describes (as its UTF-8 bytes), checked against every submission rule. */
    TaskSubmitted parse(String body) {
        return parse(body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8));
    }

    /** The task these bytes of a body describe, checked against every submission rule, on an open gateway. */
    TaskSubmitted parse(byte[] body) {
        return parse(body, null);
    }

    /**
     * The task these bytes of a body describe, checked against every submission rule; {@code credential} is the
     * name of the calling credential when the gateway checks tokens (then the server sets {@code submitter} and a
     * body naming it is refused), {@code null} on an open gateway (which keeps the body's {@code submitter}).
     */
    TaskSubmitted parse(byte[] body, String credential) {
        BodyFields.required(body, "at least \"pool\"", "{\"pool\":\"default\",\"payload\":\"hello\"}");
        JsonNode root = JsonBody.read(body);
        if (root == null || !root.isObject()) {
            throw ApiException.invalid("body", "the body must be a JSON object with at least \"pool\"");
        }
        try {
            return task(root, credential);
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw BodyFields.unforeseen("body", e);
        }
    }

    /**
     * The task one JSON object of a larger body describes (a gang's member), checked against every submission
     * rule as {@link #parse(byte[], String)} checks a whole body; a refusal names the field within the object.
     */
    TaskSubmitted parse(JsonNode object, String credential) {
        try {
            return task(object, credential);
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw BodyFields.unforeseen("body", e);
        }
    }

    private TaskSubmitted task(JsonNode root, String credential) {
        closed(root, "", FIELDS, SERVER_FIELDS, "a task");
        if (credential != null && root.has("submitter")) {
            throw BodyFields.serverSet("submitter", SUBMITTER_FROM_CREDENTIAL + " ('" + JsonBody.shown(credential, 64)
                    + "')");
        }
        TaskSubmitted.Builder task = TaskSubmitted.newBuilder()
                .setPool(read("pool", () -> requiredText(root, "pool")))
                .setTaskId(read("id", () -> optionalText(root, "id").orElseGet(() -> UUID.randomUUID().toString())))
                .setLabels(read("labels", () -> labels(root.get("labels"), "labels")))
                .setResources(read("resources", () -> resources(root.get("resources"))))
                .setPayload(read("payload", () -> payload(root)))
                .setPriority(read("priority", () -> priority(root)))
                .setDeadline(read("deadline", () -> instant(root, "deadline")))
                .setNotBefore(read("notBefore", () -> instant(root, "notBefore")))
                .setStartAt(read("startAt", () -> instant(root, "startAt")))
                .setStartToleranceMs(read("tolerance", () -> durationMillis(root, "tolerance")))
                .setTimeoutMs(read("timeout", () -> durationMillis(root, "timeout")))
                .setPreferences(read("prefer", () -> preferences(root.get("prefer"))))
                .setSubmitter(read("submitter", () -> optionalText(root, "submitter").orElse(null)))
                .setTenant(read("tenant", () -> optionalText(root, "tenant").orElse(null)))
                .setConcurrency(read("concurrency", () -> concurrency(root.get("concurrency"))))
                .setRateLimits(read("rateLimits", () -> rateLimits(root.get("rateLimits"))))
                .setAfter(read("after", () -> parents(root.get("after"))))
                .setRunIfParentUnmet(read("onParentUnmet", () -> runIfParentUnmet(root)))
                .setSubmittedAt(clock.get());
        task.setRetry(read("maxAttempts", () -> retry(root)));
        TaskSubmitted built = task.build();
        Optional<Violation> broken = read("body", () -> Rules.checkSubmission(built));
        if (broken.isPresent()) {
            throw ApiException.invalid(bodyName(broken.get().field()), broken.get().message());
        }
        return built;
    }

    /**
     * {@code after}: the parents, each a task id (in the task's own pool, to succeed) or an object
     * {@code {"task", "pool", "when"}} with {@code when} one of {@code succeeded} (the default), {@code failed},
     * {@code finished}.
     */
    static List<Dependency> parents(JsonNode node) {
        if (node == null || node.isNull()) {
            return new ArrayList<>();
        }
        if (!node.isArray()) {
            throw ApiException.invalid("after", "after must be an array of parent task ids or objects "
                    + "{\"task\": \"<id>\", \"pool\": \"<pool>\", \"when\": \"succeeded|failed|finished\"}");
        }
        if (node.size() > Rules.MAX_PARENTS) {
            throw ApiException.invalid("after", node.size() + " parents; a task waits for at most " + Rules.MAX_PARENTS);
        }
        List<Dependency> after = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            String field = "after[" + i + "]";
            if (item.isTextual()) {
                after.add(new Dependency(item.asText(), null, ParentCondition.SUCCEEDED));
                continue;
            }
            if (!item.isObject()) {
                throw ApiException.invalid(field, field + " must be a parent task id or an object {\"task\", \"pool\", \"when\"}");
            }
            closed(item, field + ".", PARENT_FIELDS, Map.of(), "a parent");
            String task = BodyFields.text(item.get("task"), field + ".task").orElseThrow(
                    () -> ApiException.invalid(field + ".task", field + ".task is required: the parent's task id"));
            String pool = BodyFields.text(item.get("pool"), field + ".pool").orElse(null);
            after.add(new Dependency(task, pool, condition(item.get("when"), field + ".when")));
        }
        return after;
    }

    private static ParentCondition condition(JsonNode when, String field) {
        if (when == null || when.isNull()) {
            return ParentCondition.SUCCEEDED;
        }
        String text = when.isTextual() ? when.asText().toUpperCase(Locale.ROOT) : "";
        for (ParentCondition c : ParentCondition.values()) {
            if (c.name().equals(text)) {
                return c;
            }
        }
        throw ApiException.invalid(field, field + " is " + JsonBody.shown(when.toString(), 40)
                + "; it is one of succeeded (the default), failed, finished");
    }

    /** {@code onParentUnmet}: {@code cancel} (the default) or {@code run}. */
    private static boolean runIfParentUnmet(JsonNode root) {
        JsonNode node = root.get("onParentUnmet");
        if (node == null || node.isNull()) {
            return false;
        }
        String text = node.isTextual() ? node.asText() : "";
        if (text.equals("run") || text.equals("cancel")) {
            return text.equals("run");
        }
        throw ApiException.invalid("onParentUnmet", "onParentUnmet is " + JsonBody.shown(node.toString(), 40)
                + "; it is cancel (the default: a parent that ends otherwise than asked cancels the task) or run "
                + "(the task runs anyway, as a clean-up does)");
    }

    /**
     * The retry policy when the body sets any of {@code maxAttempts}, {@code backoff} (the first wait) and
     * {@code maxBackoff} (its cap), the rest at {@link RetryPolicy}'s defaults; else null (the scheduler's default).
     * A {@code backoff} longer than the default cap raises the cap to it, so setting only a long first wait is
     * not refused for a cap the body never named.
     */
    private static RetryPolicy retry(JsonNode root) {
        Integer maxAttempts = integer(root.get("maxAttempts"), "maxAttempts");
        Long backoff = durationMillis(root, "backoff");
        Long maxBackoff = durationMillis(root, "maxBackoff");
        if (maxAttempts == null && backoff == null && maxBackoff == null) {
            return null;
        }
        RetryPolicy.Builder retry = RetryPolicy.newBuilder();
        if (maxAttempts != null) {
            retry.setMaxAttempts(maxAttempts);
        }
        if (backoff != null) {
            retry.setInitialBackoffMs(backoff);
            if (maxBackoff == null) {
                retry.setMaxBackoffMs(Math.max(retry.getMaxBackoffMs(), backoff));
            }
        }
        if (maxBackoff != null) {
            retry.setMaxBackoffMs(maxBackoff);
        }
        return retry.build();
    }

    /** A rule's field name (Avro's) as the body spells it: {@code timeoutMs} is {@code timeout}. */
    static String bodyName(String field) {
        if (field.startsWith("preferences")) {
            return "prefer" + field.substring("preferences".length());
        }
        return BODY_NAMES.getOrDefault(field, field);
    }

    private static ResourceRequest resources(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            throw ApiException.invalid("resources", "resources must be an object with any of "
                    + String.join(", ", RESOURCE_FIELDS));
        }
        closed(node, "resources.", RESOURCE_FIELDS, "a task");
        ResourceRequest.Builder r = ResourceRequest.newBuilder();
        quantity(node, "cpu").ifPresent(q -> r.setCpuMillis(
                read("resources.cpu", () -> parsed(() -> Quantities.parseCpuMillis("resources.cpu", q)))));
        quantity(node, "memory").ifPresent(q -> r.setMemoryBytes(
                read("resources.memory", () -> parsed(() -> Quantities.parseBytes("resources.memory", q)))));
        quantity(node, "disk").ifPresent(q -> r.setDiskBytes(
                read("resources.disk", () -> parsed(() -> Quantities.parseBytes("resources.disk", q)))));
        r.setGpu(read("resources.gpu", () -> integer(node.get("gpu"), "resources.gpu")));
        List<String> packages = new ArrayList<>();
        JsonNode list = node.get("packages");
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw ApiException.invalid("resources.packages", "resources.packages must be a list of requirement "
                        + "strings, e.g. [\"torch>=2.0,<3\"]");
            }
            for (int i = 0; i < list.size(); i++) {
                if (!list.get(i).isTextual()) {
                    throw ApiException.invalid("resources.packages[" + i + "]", "resources.packages[" + i
                            + "] must be a string such as \"numpy>=1.26\"");
                }
                packages.add(list.get(i).asText());
            }
        }
        return r.setPackages(packages).build();
    }

    /** A quantity as text: a JSON string, or a number (cpu {@code 0.5}, memory in bytes). */
    private static Optional<String> quantity(JsonNode resources, String name) {
        JsonNode node = resources.get(name);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (node.isTextual()) {
            return Optional.of(node.asText());
        }
        String example = name.equals("cpu") ? "\"500m\"" : "\"8Gi\"";
        if (node.isNumber()) {
            // Exact (the body's floats are read as BigDecimal), and bounded before it becomes text:
            // 1e400 or 1e-400 is no quantity, and its plain digits would be hundreds of characters.
            BigDecimal number = node.decimalValue();
            BigDecimal exact = number.stripTrailingZeros();
            if (number.abs().compareTo(MAX_NUMBER_QUANTITY) > 0 || exact.scale() > MAX_NUMBER_QUANTITY_DECIMALS) {
                throw ApiException.invalid("resources." + name, "resources." + name + " is "
                        + JsonBody.shown(node.asText(), 40) + "; as a JSON number a quantity is at most 1e18 with at most " + MAX_NUMBER_QUANTITY_DECIMALS
                        + " decimals: write it as a string such as " + example);
            }
            return Optional.of(exact.toPlainString());
        }
        throw ApiException.invalid("resources." + name, "resources." + name + " must be a string such as " + example);
    }

    /** A quantity parsed, its refusal a 400 for its field. */
    private static long parsed(Supplier<Long> parse) {
        try {
            return parse.get();
        } catch (InvalidInputException e) {
            throw ApiException.invalid(e.field(), e.violation().message());
        }
    }

    private static ByteBuffer payload(JsonNode root) {
        Optional<String> text = optionalText(root, "payload");
        Optional<String> base64 = optionalText(root, "payloadBase64");
        if (text.isPresent() && base64.isPresent()) {
            throw ApiException.invalid("payloadBase64", "give payload (UTF-8 text) or payloadBase64 (bytes), not both");
        }
        if (base64.isPresent()) {
            try {
                return ByteBuffer.wrap(Base64.getDecoder().decode(base64.get()));
            } catch (IllegalArgumentException e) {
                throw ApiException.invalid("payloadBase64", "payloadBase64 is not base64 (" + e.getMessage() + ")");
            }
        }
        return ByteBuffer.wrap(text.orElse("").getBytes(StandardCharsets.UTF_8));
    }

    private static Priority priority(JsonNode root) {
        Optional<String> text = optionalText(root, "priority");
        if (text.isEmpty()) {
            return Priority.NORMAL;
        }
        try {
            return Priority.valueOf(text.get().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("priority", "priority '" + text.get() + "' is not one of LOW, NORMAL, HIGH, CRITICAL");
        }
    }

    private static Instant instant(JsonNode root, String field) {
        Optional<String> text = optionalText(root, field);
        if (text.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(text.get());
        } catch (DateTimeParseException e) {
            throw ApiException.invalid(field, field + " '" + text.get() + "' is not an ISO-8601 instant such as "
                    + "2026-01-01T12:00:00Z");
        }
    }

    private static Long durationMillis(JsonNode root, String field) {
        Optional<String> text = optionalText(root, field);
        if (text.isEmpty()) {
            return null;
        }
        try {
            return Duration.parse(text.get()).toMillis();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw ApiException.invalid(field, field + " '" + text.get() + "' is not an ISO-8601 duration such as "
                    + "PT30S or PT5M");
        }
    }

    /**
     * The concurrency keys a task holds while it runs: a list of {@code {"key":..,"max":n}}, {@code max} optional.
     * A missing or malformed key is left to {@link io.cronoq.schemas.rules.LimitRules}, which names it.
     */
    private static List<ConcurrencyKey> concurrency(JsonNode node) {
        return closedObjects(node, "concurrency", "{\"key\":\"customer-42\",\"max\":2} (max optional)",
                CONCURRENCY_FIELDS, (k, field) -> new ConcurrencyKey(
                        BodyFields.text(k.get("key"), field + ".key").orElse(null),
                        integer(k.get("max"), field + ".max")));
    }

    /**
     * The rate limits a task takes units of when assigned: a list of {@code {"name":..,"units":n}}, {@code units}
     * 1 when left out. A missing or malformed name is left to {@link io.cronoq.schemas.rules.LimitRules}.
     */
    private static List<RateLimitUse> rateLimits(JsonNode node) {
        return closedObjects(node, "rateLimits", "{\"name\":\"openai\",\"units\":1} (units optional, 1 by default)",
                RATE_LIMIT_FIELDS, (r, field) -> {
                    Integer units = integer(r.get("units"), field + ".units");
                    return new RateLimitUse(BodyFields.text(r.get("name"), field + ".name").orElse(null),
                            units == null ? 1 : units);
                });
    }

    private static List<Preference> preferences(JsonNode node) {
        List<Preference> preferences = new ArrayList<>();
        if (node == null || node.isNull()) {
            return preferences;
        }
        if (!node.isArray()) {
            throw ApiException.invalid("prefer", "prefer must be a list of {\"labels\":{...},\"weight\":n}");
        }
        for (int i = 0; i < node.size(); i++) {
            String field = "prefer[" + i + "]";
            JsonNode p = node.get(i);
            if (!p.isObject()) {
                throw ApiException.invalid(field, field + " must be an object {\"labels\":{...},\"weight\":n}");
            }
            Iterator<String> names = p.fieldNames();
            while (names.hasNext()) {
                String name = names.next();
                if (!PREFERENCE_FIELDS.contains(name)) {
                    throw ApiException.invalid(field + "." + name, "unknown field '" + field + "." + name
                            + "'; a preference has labels, weight");
                }
            }
            Integer weight = integer(p.get("weight"), field + ".weight");
            preferences.add(new Preference(labels(p.get("labels"), field + ".labels"), weight == null ? 1 : weight));
        }
        return preferences;
    }
}
