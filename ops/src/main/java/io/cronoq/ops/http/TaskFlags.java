package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.RetryPolicy;
import io.cronoq.ops.limits.LimitFlags;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.Rules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The flags that describe one task (a picocli mixin), but its pool and id: {@code cronoq submit}'s, and
 * {@code cronoq gangs submit}'s for the task every member runs. Each value is checked here, so a mistake names the
 * flag and what to give instead.
 */
final class TaskFlags {

    /** The first wait before a retry when the task says none: {@code RetryPolicy}'s default. */
    private static final Duration DEFAULT_BACKOFF =
            Duration.ofMillis(RetryPolicy.newBuilder().build().getInitialBackoffMs());

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "A label the worker must carry (repeatable).")
    Map<String, String> labels;

    @Option(names = "--tenant", paramLabel = "TENANT",
            description = "The team the task runs for, whose fair share and quotas it counts against "
                    + "(default: the token's tenant, else default).")
    String tenant;

    @Option(names = "--concurrency", paramLabel = "KEY[:MAX]",
            description = "A concurrency key the task holds while it runs: at most MAX attempts holding KEY run at once "
                    + "in the pool (no MAX: the key's limit in the pool, else 1; the smallest limit applies). Repeatable.")
    List<String> concurrency;

    @Option(names = "--rate-limit", paramLabel = "NAME[:UNITS]",
            description = "Take UNITS (default 1) of the pool's rate limit NAME when the task is assigned; it waits "
                    + "until the limit has them (or until an admin defines it). Repeatable.")
    List<String> rateLimits;

    @Option(names = "--payload", paramLabel = "TEXT", description = "The payload, as UTF-8 text.")
    String payload;

    @Option(names = "--payload-file", paramLabel = "FILE", description = "The payload, read from a file (bytes).")
    Path payloadFile;

    @Option(names = "--cpu", paramLabel = "QTY", description = "CPU needed: cores or millicores (2, 0.5, 500m).")
    String cpu;

    @Option(names = "--memory", paramLabel = "QTY", description = "Memory needed: bytes or 8Gi, 512Mi, 2G …")
    String memory;

    @Option(names = "--disk", paramLabel = "QTY", description = "Free disk needed: bytes or 20Gi, 100G …")
    String disk;

    @Option(names = "--gpu", paramLabel = "N", description = "GPUs with free memory needed.")
    Integer gpu;

    @Option(names = "--package", paramLabel = "REQ", description = "A package requirement, e.g. 'torch>=2.0,<3' (repeatable).")
    List<String> packages;

    @Option(names = "--priority", paramLabel = "CLASS", description = "LOW, NORMAL, HIGH or CRITICAL.")
    String priority;

    @Option(names = "--deadline", paramLabel = "TIME",
            description = "Raises the task's urgency as it nears; a task past it still runs, marked late.")
    String deadline;

    @Option(names = "--not-before", paramLabel = "TIME", description = "The task does not start before this time.")
    String notBefore;

    @Option(names = "--start-at", paramLabel = "TIME",
            description = "Fixed start: the scheduler holds a matching slot so the task starts at this time.")
    String startAt;

    @Option(names = "--start-tolerance", paramLabel = "DURATION",
            description = "How late a fixed start may be and still count as on time (needs --start-at).")
    String startTolerance;

    @Option(names = "--timeout", paramLabel = "DURATION",
            description = "Lease of each attempt: one running longer is revoked and retried.")
    String timeout;

    @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts in all, the first included (1 or more).")
    Integer maxAttempts;

    @Option(names = "--backoff", paramLabel = "DURATION",
            description = "Wait before the first retry; it doubles for each further one (default 1s).")
    String backoff;

    @Option(names = "--max-backoff", paramLabel = "DURATION",
            description = "The longest wait between retries (default 1m, or --backoff when longer).")
    String maxBackoff;

    /** Now, for the relative times ({@code +10m}); set by the command. */
    Clock clock = Clock.systemUTC();

    /**
     * Puts the fields of {@code POST /v1/tasks} the flags describe into {@code body}; times go as ISO-8601 instants,
     * durations as ISO-8601 durations.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    void putInto(ObjectNode body) throws IOException {
        if (payload != null && payloadFile != null) {
            throw new IllegalArgumentException("--payload and --payload-file: give one or the other");
        }
        if (labels != null) {
            labels.forEach(body.putObject("labels")::put);
        }
        if (tenant != null) {
            Rules.tenant(tenant).ifPresent(v -> {
                throw new IllegalArgumentException("--tenant: " + v.message());
            });
            body.put("tenant", tenant);
        }
        putLimits(body);
        if (payload != null) {
            body.put("payload", payload);
        }
        if (payloadFile != null) {
            if (!Files.isReadable(payloadFile)) {
                throw new IllegalArgumentException("--payload-file " + payloadFile + ": no such readable file");
            }
            body.put("payloadBase64", Base64.getEncoder().encodeToString(Files.readAllBytes(payloadFile)));
        }
        if (cpu != null || memory != null || disk != null || gpu != null || packages != null) {
            ObjectNode resources = body.putObject("resources");
            putIfSet(resources, "cpu", cpu);
            putIfSet(resources, "memory", memory);
            putIfSet(resources, "disk", disk);
            if (gpu != null) {
                resources.put("gpu", gpu);
            }
            if (packages != null) {
                packages.forEach(resources.putArray("packages")::add);
            }
        }
        putIfSet(body, "priority", priority);
        putTimes(body);
        putRetry(body);
    }

    /** {@code concurrency: [{key, max}]} and {@code rateLimits: [{name, units}]}, checked as the scheduler checks them. */
    private void putLimits(ObjectNode body) {
        if (concurrency != null) {
            ArrayNode keys = body.putArray("concurrency");
            for (ConcurrencyKey k : LimitFlags.keys("--concurrency", concurrency)) {
                ObjectNode key = keys.addObject().put("key", k.getKey());
                if (k.getMax() != null) {
                    key.put("max", k.getMax());
                }
            }
        }
        if (rateLimits != null) {
            ArrayNode uses = body.putArray("rateLimits");
            for (RateLimitUse u : LimitFlags.rates("--rate-limit", rateLimits)) {
                uses.addObject().put("name", u.getName()).put("units", u.getUnits());
            }
        }
    }

    private void putTimes(ObjectNode body) {
        putTime(body, "deadline", "--deadline", deadline);
        putTime(body, "notBefore", "--not-before", notBefore);
        putTime(body, "startAt", "--start-at", startAt);
        if (startTolerance != null) {
            if (startAt == null) {
                throw new IllegalArgumentException("--start-tolerance " + startTolerance + " needs --start-at: it "
                        + "says how late a fixed start may be; add --start-at TIME or drop --start-tolerance");
            }
            body.put("tolerance", TimeFlags.duration("--start-tolerance", startTolerance).toString());
        }
        if (timeout != null) {
            body.put("timeout", TimeFlags.positiveDuration("--timeout", timeout).toString());
        }
    }

    private void putRetry(ObjectNode body) {
        if (maxAttempts != null) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("--max-attempts " + maxAttempts + ": a task gets at least 1 "
                        + "attempt; give 1 (no retry) or more");
            }
            body.put("maxAttempts", maxAttempts);
        }
        Duration first = backoff == null ? null : TimeFlags.duration("--backoff", backoff);
        Duration cap = maxBackoff == null ? null : TimeFlags.duration("--max-backoff", maxBackoff);
        if (cap != null) {
            Duration floor = first != null ? first : DEFAULT_BACKOFF;
            if (cap.compareTo(floor) < 0) {
                throw new IllegalArgumentException("--max-backoff " + maxBackoff + " is shorter than the first wait ("
                        + (first != null ? "--backoff " + backoff : "--backoff defaults to "
                        + Durations.words(DEFAULT_BACKOFF)) + "); the cap is at least the first wait");
            }
        }
        if (first != null) {
            body.put("backoff", first.toString());
        }
        if (cap != null) {
            body.put("maxBackoff", cap.toString());
        }
    }

    /** Puts the time flag {@code flag}'s value as the ISO-8601 instant {@code field}, when it is given. */
    private void putTime(ObjectNode body, String field, String flag, String value) {
        if (value != null) {
            body.put(field, TimeFlags.time(flag, value, clock).toString());
        }
    }

    private static void putIfSet(ObjectNode node, String name, String value) {
        if (value != null) {
            node.put(name, value);
        }
    }
}
