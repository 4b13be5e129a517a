package io.cronoq.scheduler.policy;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Gpu;
import io.cronoq.events.Preference;
import io.cronoq.events.Priority;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import io.cronoq.schemas.rules.Quantities;
import java.util.ArrayList;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Input events for pool {@code p}, built with constructors (Avro 1.12 builders resolve enum
 * defaults through a class allow-list). Times do not matter to placement; all inputs use {@link #T0}.
 */
final class In {

    static final String POOL = "p";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private In() {}

    /** Labels from {@code "name=value"} strings. */
    static Map<String, String> labels(String... pairs) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            labels.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return labels;
    }

    static TaskSubmitted task(String id, String... required) {
        return new TaskSubmitted(id, POOL, labels(required), null,
                ByteBuffer.wrap(("payload of " + id).getBytes(StandardCharsets.UTF_8)), Priority.NORMAL, null, null,
                null, null, 30_000L, null, List.of(), null, T0, null, java.util.List.of(), java.util.List.of(), null, new java.util.ArrayList<>(), false, null);
    }

    static TaskSubmitted task(String id, RetryPolicy retry, String... required) {
        TaskSubmitted task = task(id, required);
        task.setRetry(retry);
        return task;
    }

    static RetryPolicy retries(int maxAttempts) {
        return new RetryPolicy(maxAttempts, 1_000L, 60_000L, 2.0);
    }

    /** A task that needs these resources (see {@link #needs()}) and carries these labels. */
    static TaskSubmitted task(String id, Needs needs, String... required) {
        TaskSubmitted task = task(id, required);
        task.setResources(needs.build());
        return task;
    }

    /** A task that prefers workers carrying {@code labels} with this weight (add more with {@link #prefer}). */
    static TaskSubmitted prefer(TaskSubmitted task, int weight, String... labels) {
        List<Preference> preferences = new ArrayList<>(task.getPreferences());
        preferences.add(new Preference(labels(labels), weight));
        task.setPreferences(preferences);
        return task;
    }

    /** An empty resource request to fill, quantities written as people write them ({@code 8Gi}, {@code 500m}). */
    static Needs needs() {
        return new Needs();
    }

    /** Published worker resources to fill, quantities written as people write them. */
    static Has has() {
        return new Has();
    }

    /** A task's resource request under construction. */
    static final class Needs {
        private final ResourceRequest r = new ResourceRequest(null, null, null, null, new ArrayList<>());

        Needs cpu(String cores) {
            r.setCpuMillis(Quantities.parseCpuMillis("cpu", cores));
            return this;
        }

        Needs memory(String bytes) {
            r.setMemoryBytes(Quantities.parseBytes("memory", bytes));
            return this;
        }

        Needs disk(String bytes) {
            r.setDiskBytes(Quantities.parseBytes("disk", bytes));
            return this;
        }

        Needs gpu(int count) {
            r.setGpu(count);
            return this;
        }

        Needs packages(String... requirements) {
            r.getPackages().addAll(List.of(requirements));
            return this;
        }

        ResourceRequest build() {
            return r;
        }
    }

    /** A worker's published resources under construction. */
    static final class Has {
        private final WorkerResources r = new WorkerResources(0L, 0L, 0L, new ArrayList<>(), new HashMap<>());

        Has cpu(String cores) {
            r.setCpuMillis(Quantities.parseCpuMillis("cpu", cores));
            return this;
        }

        Has memory(String bytes) {
            r.setMemoryBytes(Quantities.parseBytes("memory", bytes));
            return this;
        }

        Has disk(String bytes) {
            r.setDiskBytes(Quantities.parseBytes("disk", bytes));
            return this;
        }

        /** One GPU of this model with this much memory free ({@code 0}: all taken). */
        Has gpu(String model, String free) {
            r.getGpus().add(new Gpu(r.getGpus().size(), model, Quantities.parseBytes("gpu", "80Gi"),
                    Quantities.parseBytes("gpu", free)));
            return this;
        }

        Has pkg(String name, String version) {
            r.getPackages().put(name, version);
            return this;
        }

        WorkerResources build() {
            return r;
        }
    }

    /** A task of {@code tenant} that requires these labels, without a timeout. */
    static TaskSubmitted tenantTask(String id, String tenant, String... required) {
        TaskSubmitted task = task(id, required);
        task.setTenant(tenant);
        task.setTimeoutMs(null); // no lease: what a tick decides here is the sharing's alone
        return task;
    }

    /** A change of a tenant's weight (null: unchanged) and quotas (none given: unchanged). */
    static SharingPolicySet share(String tenant, Double weight, TenantQuota... quotas) {
        return new SharingPolicySet(POOL, tenant, weight, quotas.length == 0 ? null : new ArrayList<>(List.of(quotas)),
                null, null, "tests", T0);
    }

    /** A change of the pool's preemption settings. */
    static SharingPolicySet preemption(Boolean on, Long graceMs) {
        return new SharingPolicySet(POOL, null, null, null, on, graceMs, "tests", T0);
    }

    /** A quota over the workers carrying {@code scope} ({@code "name=value"} strings; none: the pool); max null: unbounded. */
    static TenantQuota quota(int guaranteed, Integer max, String... scope) {
        return new TenantQuota(labels(scope), guaranteed, max);
    }

    /** The task, holding concurrency key {@code key} with this max (null: none given). */
    static TaskSubmitted keyed(TaskSubmitted task, String key, Integer max) {
        List<ConcurrencyKey> keys = new ArrayList<>(task.getConcurrency());
        keys.add(new ConcurrencyKey(key, max));
        task.setConcurrency(keys);
        return task;
    }

    /** The task, taking {@code units} of rate limit {@code name} at assignment. */
    static TaskSubmitted rated(TaskSubmitted task, String name, int units) {
        List<RateLimitUse> uses = new ArrayList<>(task.getRateLimits());
        uses.add(new RateLimitUse(name, units));
        task.setRateLimits(uses);
        return task;
    }

    /** An admin sets (max null: removes) the pool's limit of a concurrency key, at {@code at}. */
    static LimitSet keyLimit(String key, Integer max, Instant at) {
        return new LimitSet(POOL, LimitKind.CONCURRENCY_KEY, key, max, null, null, "tests", at);
    }

    /** An admin defines (perSecond null: removes) a rate limit, at {@code at}. */
    static LimitSet rateLimit(String name, Double perSecond, Integer burst, Instant at) {
        return new LimitSet(POOL, LimitKind.RATE_LIMIT, name, null, perSecond, burst, "tests", at);
    }

    static TaskCancelRequested cancel(String id) {
        return new TaskCancelRequested(id, POOL, "no longer needed", "tests", T0);
    }

    static WorkerRegistered worker(String id, int slots, String... labels) {
        return new WorkerRegistered(id, POOL, labels(labels), slots, null, null, null, null, T0);
    }

    static WorkerRegistered worker(String id, int slots, Has resources, String... labels) {
        return new WorkerRegistered(id, POOL, labels(labels), slots, resources.build(), null, null, null, T0);
    }

    static WorkerHeartbeat heartbeat(String id, long generation, Instant at) {
        return new WorkerHeartbeat(id, POOL, generation, List.of(), at);
    }

    static WorkerDraining drain(String id) {
        return new WorkerDraining(id, POOL, null, T0);
    }

    static WorkerLeft left(String id, String reason) {
        return new WorkerLeft(id, POOL, null, reason, T0);
    }

    static AttemptStarted started(AttemptAssigned a) {
        return new AttemptStarted(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0);
    }

    static AttemptSucceeded succeeded(AttemptAssigned a) {
        return new AttemptSucceeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0, null);
    }

    static AttemptFailed failed(AttemptAssigned a, String error, boolean retryable) {
        return new AttemptFailed(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0, error,
                retryable);
    }
}
