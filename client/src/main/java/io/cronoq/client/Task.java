package io.cronoq.client;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.Dependency;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.Preference;
import io.cronoq.events.Priority;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.InvalidInputException;
import io.cronoq.schemas.rules.LimitRules;
import io.cronoq.schemas.rules.PackageRequirement;
import io.cronoq.schemas.rules.Quantities;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A task ready to submit: valid by every rule the scheduler applies, with its id fixed. Build one
 * with {@code Task.of(payload).pool("inference").label("gpu", "a100").build()}. Sending the same
 * {@code Task} twice (say, after a timeout) creates one task: the scheduler ignores the second
 * submission of an id. Immutable and thread-safe.
 */
public final class Task {

    private final TaskSubmitted event;

    private Task(TaskSubmitted event) {
        this.event = event;
    }

    /** Starts a task with this payload (handed to the worker as is; copied). */
    public static Builder of(byte[] payload) {
        return new Builder(new Draft()).payload(payload);
    }

    /** Starts a task whose payload is this text in UTF-8. */
    public static Builder of(String payload) {
        return of(Objects.requireNonNull(payload, "payload").getBytes(StandardCharsets.UTF_8));
    }

    /** The task id: the one given, or a random UUID drawn when the task was built. */
    public String id() {
        return event.getTaskId();
    }

    /** The pool the task runs in. */
    public String pool() {
        return event.getPool();
    }

    /** The labels a worker's group must carry (every name = value pair). */
    public Map<String, String> labels() {
        return Collections.unmodifiableMap(event.getLabels());
    }

    /** A copy of the payload. */
    public byte[] payload() {
        ByteBuffer b = event.getPayload().duplicate();
        byte[] copy = new byte[b.remaining()];
        b.get(copy);
        return copy;
    }

    /** The priority class. */
    public Priority priority() {
        return event.getPriority();
    }

    /** When the task was built (the submission's event time). */
    public Instant submittedAt() {
        return event.getSubmittedAt();
    }

    /** Who submitted it, if said. */
    public Optional<String> submitter() {
        return Optional.ofNullable(event.getSubmitter());
    }

    /**
     * The tenant (team) it runs for, if given: that tenant's weight and quotas decide its share of
     * the pool. Empty: it counts against the tenant {@code default}.
     */
    public Optional<String> tenant() {
        return Optional.ofNullable(event.getTenant());
    }

    /**
     * The concurrency keys the task holds while it runs, in the order given: a copy. A key's
     * {@code max} is null when the task gave none (the pool's limit for the key, else 1).
     */
    public List<ConcurrencyKey> concurrency() {
        List<ConcurrencyKey> copy = new ArrayList<>();
        event.getConcurrency().forEach(k -> copy.add(new ConcurrencyKey(k.getKey(), k.getMax())));
        return Collections.unmodifiableList(copy);
    }

    /** The rate limits the task takes units of when it is assigned, in the order given: a copy. */
    public List<RateLimitUse> rateLimits() {
        List<RateLimitUse> copy = new ArrayList<>();
        event.getRateLimits().forEach(u -> copy.add(new RateLimitUse(u.getName(), u.getUnits())));
        return Collections.unmodifiableList(copy);
    }

    /**
     * The submission event this task sends: a fresh copy each time, so the caller may change it
     * without changing the task.
     */
    public TaskSubmitted toEvent() {
        return TaskSubmitted.newBuilder(event).build();
    }

    /** The event itself, for the client's serializer, which only reads it. */
    TaskSubmitted event() {
        return event;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Task t && t.event.equals(event);
    }

    @Override
    public int hashCode() {
        return event.hashCode();
    }

    @Override
    public String toString() {
        return "Task[" + id() + " in " + pool() + (event.getLabels().isEmpty() ? "" : " " + event.getLabels()) + "]";
    }

    /**
     * An immutable task builder: every step returns a new builder and leaves this one as it was, so
     * a builder can be shared as a template ({@code base.label("gpu", "a100")} does not change
     * {@code base}). A step refuses a bad value at once with an {@link InvalidInputException}
     * naming the field; {@link #build()} refuses what only the whole task can tell (no pool, say).
     */
    public static final class Builder {

        private final Draft draft;

        private Builder(Draft draft) {
            this.draft = draft;
        }

        private Builder with(java.util.function.Consumer<Draft> change) {
            Draft copy = draft.copy();
            change.accept(copy);
            return new Builder(copy);
        }

        /** The payload handed to the worker (copied). */
        public Builder payload(byte[] payload) {
            byte[] copy = Objects.requireNonNull(payload, "payload").clone();
            return with(d -> d.payload = copy);
        }

        /** The pool to run in; required. */
        public Builder pool(String pool) {
            throwIfPresent(Rules.pool(pool));
            return with(d -> d.pool = pool);
        }

        /** A label a worker's group must carry; tasks without labels run in any group. */
        public Builder label(String name, String value) {
            throwIfPresent(Rules.labels(Collections.singletonMap(name, value)));
            return with(d -> d.labels.put(name, value));
        }

        /** Several required labels at once (added to those given before). */
        public Builder labels(Map<String, String> labels) {
            Map<String, String> copy = new LinkedHashMap<>(Objects.requireNonNull(labels, "labels"));
            throwIfPresent(Rules.labels(copy));
            return with(d -> d.labels.putAll(copy));
        }

        /**
         * The task id. Give one when the id must be known before building (a key of yours, so a
         * second process submitting the same work creates no second task); otherwise {@link #build()}
         * draws a random UUID.
         */
        public Builder id(String id) {
            throwIfPresent(Rules.taskId(id));
            return with(d -> d.id = id);
        }

        /** Who submits, for the journal and the gateway (free text). */
        public Builder submitter(String submitter) {
            return with(d -> d.submitter = submitter);
        }

        /**
         * The tenant (team) the task runs for, whose fair share of the pool and quotas it counts
         * against: the label value alphabet, e.g. {@code "research"}. Not given, it counts against
         * the tenant {@code default}.
         */
        public Builder tenant(String tenant) {
            Objects.requireNonNull(tenant, "tenant");
            throwIfPresent(Rules.tenant(tenant));
            return with(d -> d.tenant = tenant);
        }

        /**
         * A concurrency key the task holds while its attempt is assigned or runs, with its own limit:
         * at most {@code max} attempts holding {@code key} run at once in the pool (the smallest limit
         * wins when the pool's admin set a lower one, or a running holder declared one). A task held
         * back by its key waits without holding up other tasks. E.g. {@code concurrency("customer-42", 2)}.
         */
        public Builder concurrency(String key, int max) {
            return withKey(new ConcurrencyKey(key, max));
        }

        /**
         * A concurrency key without a limit of the task's own: the limit the pool's admin set for the
         * key ({@code cronoq limits key}), else 1 (one at a time).
         */
        public Builder concurrency(String key) {
            return withKey(new ConcurrencyKey(key, null));
        }

        /**
         * Takes {@code units} (1 or more) of the pool's rate limit {@code name} when the task is
         * assigned: it waits until the limit's bucket holds them. A rate limit no admin defined
         * ({@code cronoq limits rate}) keeps the task waiting until it is defined.
         */
        public Builder rateLimit(String name, int units) {
            List<RateLimitUse> uses = new ArrayList<>(draft.rateLimits);
            uses.add(new RateLimitUse(name, units));
            throwIfPresent(LimitRules.rateLimits(uses));
            return with(d -> d.rateLimits = uses);
        }

        /** Takes one unit of the pool's rate limit {@code name} when the task is assigned (see {@link #rateLimit(String, int)}). */
        public Builder rateLimit(String name) {
            return rateLimit(name, 1);
        }

        /** Adds {@code key} after the keys given so far, refused (naming its index) by the rules of the whole list. */
        private Builder withKey(ConcurrencyKey key) {
            List<ConcurrencyKey> keys = new ArrayList<>(draft.concurrency);
            keys.add(key);
            throwIfPresent(LimitRules.concurrency(keys));
            return with(d -> d.concurrency = keys);
        }

        /** The priority class; {@link Priority#NORMAL} if not given. */
        public Builder priority(Priority priority) {
            Objects.requireNonNull(priority, "priority");
            return with(d -> d.priority = priority);
        }

        /** A time by which the task should be done: raises its urgency as it nears, never cancels it. */
        public Builder deadline(Instant deadline) {
            Objects.requireNonNull(deadline, "deadline");
            return with(d -> d.deadline = deadline);
        }

        /** The task does not start before this time. */
        public Builder notBefore(Instant notBefore) {
            Objects.requireNonNull(notBefore, "notBefore");
            return with(d -> d.notBefore = notBefore);
        }

        /** A fixed start: the task starts at this time exactly, or not at all. */
        public Builder startAt(Instant startAt) {
            return startAt(startAt, Duration.ZERO);
        }

        /** A fixed start that may begin up to {@code tolerance} late (give more when matching workers are scarce). */
        public Builder startAt(Instant startAt, Duration tolerance) {
            Objects.requireNonNull(startAt, "startAt");
            Objects.requireNonNull(tolerance, "tolerance");
            if (tolerance.isNegative()) {
                throw new InvalidInputException("startToleranceMs", "startToleranceMs is " + tolerance.toMillis()
                        + "; a tolerance is 0 or more milliseconds");
            }
            return with(d -> {
                d.startAt = startAt;
                d.startTolerance = tolerance;
            });
        }

        /** The lease of one attempt: one that runs longer is revoked and retried. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new InvalidInputException("timeoutMs", "timeoutMs is " + timeout.toMillis()
                        + "; a timeout is a positive number of milliseconds");
            }
            return with(d -> d.timeout = timeout);
        }

        /** How a failed task is retried; the scheduler's default ({@link Retry#DEFAULT}) if not given. */
        public Builder retry(Retry retry) {
            Objects.requireNonNull(retry, "retry");
            return with(d -> d.retry = retry);
        }

        /** CPU the worker must have: cores ({@code "2"}, {@code "0.5"}) or millicores ({@code "500m"}). */
        public Builder cpu(String quantity) {
            long millis = Quantities.parseCpuMillis("resources.cpu", quantity);
            return with(d -> d.cpuMillis = millis);
        }

        /** Memory the worker must have: bytes or Kubernetes suffixes ({@code "8Gi"}, {@code "500M"}). */
        public Builder memory(String quantity) {
            long bytes = Quantities.parseBytes("resources.memory", quantity);
            return with(d -> d.memoryBytes = bytes);
        }

        /** Free disk the worker must have: bytes or Kubernetes suffixes ({@code "20Gi"}). */
        public Builder disk(String quantity) {
            long bytes = Quantities.parseBytes("resources.disk", quantity);
            return with(d -> d.diskBytes = bytes);
        }

        /** GPUs with free memory the worker must have. */
        public Builder gpu(int count) {
            if (count < 0) {
                throw new InvalidInputException("resources.gpu", "resources.gpu is " + count + "; a request is 0 or more");
            }
            return with(d -> d.gpu = count);
        }

        /** Packages the worker must have installed, as pip writes them: {@code "torch>=2.0,<3"}, {@code "numpy"}. */
        public Builder packages(String... requirements) {
            List<String> checked = new ArrayList<>();
            for (String requirement : requirements) {
                String field = "resources.packages[" + (draft.packages.size() + checked.size()) + "]";
                checked.add(PackageRequirement.parse(field, requirement).toString());
            }
            return with(d -> d.packages.addAll(checked));
        }

        /** A soft preference: among eligible workers, those carrying this label score {@code weight} (1 to 100) more. */
        public Builder prefer(String name, String value, int weight) {
            return prefer(Collections.singletonMap(name, value), weight);
        }

        /** A soft preference: among eligible workers, those carrying all these labels score {@code weight} (1 to 100) more. */
        public Builder prefer(Map<String, String> labels, int weight) {
            Preference preference = new Preference(new LinkedHashMap<>(Objects.requireNonNull(labels, "labels")), weight);
            Optional<Violation> v = Rules.preferences(List.of(preference));
            if (v.isPresent()) {
                String index = "preferences[" + draft.preferences.size() + "]";
                throw new InvalidInputException(v.get().field().replaceFirst("^preferences\\[0]", index),
                        v.get().message().replace("preferences[0]", index));
            }
            return with(d -> d.preferences.add(preference));
        }

        /**
         * A parent: the task waits, BLOCKED and holding no slot, until the task {@code taskId} of its own pool
         * succeeded; a parent that fails or is cancelled cancels it (unless {@link #runIfParentUnmet}). The parent
         * must be submitted before this task.
         */
        public Builder after(String taskId) {
            return after(taskId, null, ParentCondition.SUCCEEDED);
        }

        /**
         * A parent in {@code pool} ({@code null}: the task's own) that must end as {@code when} says: succeed, fail,
         * or end in any way ({@code FINISHED}).
         */
        public Builder after(String taskId, String pool, ParentCondition when) {
            Dependency parent = new Dependency(Objects.requireNonNull(taskId, "taskId"), pool,
                    Objects.requireNonNull(when, "when"));
            Optional<Violation> v = Rules.id("after[" + draft.after.size() + "].task", taskId)
                    .or(() -> pool == null ? Optional.empty() : Rules.pool(pool));
            if (v.isPresent()) {
                throw v.get().toException();
            }
            return with(d -> {
                List<Dependency> more = new ArrayList<>(d.after);
                more.add(parent);
                d.after = List.copyOf(more);
            });
        }

        /** Runs the task even when a parent ends otherwise than asked (a clean-up), instead of cancelling it. */
        public Builder runIfParentUnmet() {
            return with(d -> d.runIfParentUnmet = true);
        }

        /** The pool given so far, or {@code null}: a gang checks its members' against its own. */
        String givenPool() {
            return draft.pool;
        }

        /** The id given so far, or {@code null}: a gang's members take theirs from the gang. */
        String givenId() {
            return draft.id;
        }

        /** The task, with its id fixed and its submission time read from the system clock. */
        public Task build() {
            return build(Clock.systemUTC());
        }

        /**
         * The task, with its id fixed and its submission time read from {@code clock}.
         *
         * @throws InvalidInputException naming the first field that breaks a rule (e.g. no pool)
         */
        public Task build(Clock clock) {
            TaskSubmitted event = draft.toEvent(draft.id != null ? draft.id : UUID.randomUUID().toString(),
                    clock.instant());
            throwIfPresent(Rules.checkSubmission(event));
            return new Task(event);
        }

        private static void throwIfPresent(Optional<Violation> violation) {
            if (violation.isPresent()) {
                throw violation.get().toException();
            }
        }
    }

    /** The mutable state behind one immutable {@link Builder}; each step changes a fresh copy. */
    private static final class Draft implements Cloneable {
        byte[] payload = new byte[0];
        String pool;
        String id;
        String submitter;
        String tenant;
        Map<String, String> labels = new LinkedHashMap<>();
        Priority priority = Priority.NORMAL;
        Instant deadline;
        Instant notBefore;
        Instant startAt;
        Duration startTolerance;
        Duration timeout;
        Retry retry;
        Long cpuMillis;
        Long memoryBytes;
        Long diskBytes;
        Integer gpu;
        List<String> packages = new ArrayList<>();
        List<Preference> preferences = new ArrayList<>();
        /** Never changed in place: a step replaces the list, so copies may share it. */
        List<ConcurrencyKey> concurrency = List.of();
        /** Never changed in place: a step replaces the list, so copies may share it. */
        List<RateLimitUse> rateLimits = List.of();
        /** Never changed in place: a step replaces the list, so copies may share it. */
        List<Dependency> after = List.of();
        boolean runIfParentUnmet;

        /** Every field as it is, with a list or map of its own where a step changes one in place. */
        Draft copy() {
            Draft d;
            try {
                d = (Draft) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError("a draft is Cloneable", e);
            }
            d.labels = new LinkedHashMap<>(labels);
            d.packages = new ArrayList<>(packages);
            d.preferences = new ArrayList<>(preferences);
            return d;
        }

        TaskSubmitted toEvent(String taskId, Instant submittedAt) {
            boolean hasResources = cpuMillis != null || memoryBytes != null || diskBytes != null || gpu != null
                    || !packages.isEmpty();
            ResourceRequest resources = hasResources
                    ? new ResourceRequest(cpuMillis, memoryBytes, diskBytes, gpu, new ArrayList<>(packages))
                    : null;
            List<Preference> prefs = new ArrayList<>();
            for (Preference p : preferences) {
                prefs.add(new Preference(new LinkedHashMap<>(p.getLabels()), p.getWeight()));
            }
            List<ConcurrencyKey> keys = new ArrayList<>();
            concurrency.forEach(k -> keys.add(new ConcurrencyKey(k.getKey(), k.getMax())));
            List<RateLimitUse> rates = new ArrayList<>();
            rateLimits.forEach(u -> rates.add(new RateLimitUse(u.getName(), u.getUnits())));
            List<Dependency> parents = new ArrayList<>();
            after.forEach(d -> parents.add(new Dependency(d.getTask(), d.getPool(), d.getWhen())));
            // The constructor, not the Avro builder: it needs no default resolution at run time.
            return new TaskSubmitted(taskId, pool, new LinkedHashMap<>(labels), resources,
                    ByteBuffer.wrap(payload.clone()), priority, deadline, notBefore, startAt,
                    startTolerance == null ? null : startTolerance.toMillis(), timeout == null ? null : timeout.toMillis(),
                    retry == null ? null : retry.toEvent(), prefs, submitter, submittedAt, tenant, keys, rates, null,
                    parents, runIfParentUnmet, null);
        }
    }
}
