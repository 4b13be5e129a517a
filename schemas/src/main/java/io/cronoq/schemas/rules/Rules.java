package io.cronoq.schemas.rules;

import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Dependency;
import io.cronoq.events.Preference;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The input rules of cronoq, in one place: the scheduler, the Java client and the HTTP gateway
 * apply exactly these, so an input refused at one edge is refused at every edge with the same
 * field and message. Each check returns the first {@link Violation}, or empty when the input is
 * valid. The patterns document the sets; the checks walk the characters instead of running a
 * regex, because the scheduler validates every input on its hot path (a test keeps the two equal).
 */
public final class Rules {

    /** Pool names: 1 to 128 characters. */
    public static final Pattern POOL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
    /** Task and worker ids: the pool alphabet, 1 to 255 characters. */
    public static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,254}");
    /** Label names: 1 to 63 characters, alphanumeric at both ends, '/' allowed for prefixes. */
    public static final Pattern LABEL_NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._/-]{0,61}[A-Za-z0-9])?");
    /** Label values: 1 to 63 characters, alphanumeric at both ends. */
    public static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");
    /** The most slots one worker may declare; keeps capacity sums far from overflow. */
    public static final int MAX_SLOTS = 65_536;
    /** The heaviest soft routing preference, as in Kubernetes' preferred node affinity. */
    public static final int MAX_PREFERENCE_WEIGHT = 100;
    /**
     * The largest payload a task may carry: 512 KiB. The payload travels in the submission, the task's
     * state record, the journal and the assignment, each one Kafka record under the default 1 MB limit;
     * larger inputs belong in object storage, with a reference in the payload.
     */
    public static final int MAX_PAYLOAD_BYTES = 512 * 1024;
    /**
     * The most labels a task may require, a worker carry or a preference name: 64. Every label is
     * matched against every group and journaled with every change of the task, and a reason that
     * names missing labels grows with them: an input's size in parts is bounded, like its payload.
     */
    public static final int MAX_LABELS = 64;
    /** The most parents a task may name: a reduce over ten thousand shards is one task. */
    public static final int MAX_PARENTS = 10_000;
    /**
     * The largest result an attempt may return with its success: 64 KiB. It is kept with the task and handed
     * to each of its children in their assignment, so it is for small outputs (a path, a count, a score).
     */
    public static final int MAX_RESULT_BYTES = 64 * 1024;
    /** The most soft routing preferences a task may give: 16. */
    public static final int MAX_PREFERENCES = 16;
    /** The most package requirements a task may give: 64. */
    public static final int MAX_PACKAGES = 64;
    /** The longest package requirement, such as {@code torch>=2.0,<3}: 256 characters. */
    public static final int MAX_PACKAGE_LENGTH = 256;
    /** The longest free text an input carries for people to read, such as a cancel's reason: 1024 characters. */
    public static final int MAX_REASON_LENGTH = 1024;
    /**
     * The longest error text an attempt's failure keeps: 8192 characters (the agent sends at most
     * the last 4 KiB of a child's stderr). Longer text is shortened, never refused: refusing a
     * worker's report would leave its attempt running in the scheduler's eyes until its lease ends.
     */
    public static final int MAX_ERROR_LENGTH = 8192;
    /** The longest reason a worker gives for leaving: 1024 characters, shortened beyond (see {@link #shortened}). */
    public static final int MAX_LEAVE_REASON_LENGTH = 1024;
    /** The longest submitter name (the credential or person a task is journaled as submitted by): 255 characters. */
    public static final int MAX_SUBMITTER_LENGTH = 255;
    /** The most GPUs a worker may publish: 64. */
    public static final int MAX_WORKER_GPUS = 64;
    /** The most installed packages a worker may publish: 4096. */
    public static final int MAX_WORKER_PACKAGES = 4096;

    static final String POOL_ALLOWED =
            "1 to 128 characters: letters, digits, '.', '_', ':' or '-', starting with a letter or digit";
    static final String ID_ALLOWED =
            "1 to 255 characters: letters, digits, '.', '_', ':' or '-', starting with a letter or digit";
    static final String LABEL_NAME_ALLOWED =
            "1 to 63 characters: letters, digits, '.', '_', '/' or '-', starting and ending with a letter or digit";
    static final String LABEL_VALUE_ALLOWED =
            "1 to 63 characters: letters, digits, '.', '_' or '-', starting and ending with a letter or digit";

    private Rules() {}

    // ---- fields -------------------------------------------------------------------------------

    public static Optional<Violation> pool(String pool) {
        return isPool(pool) ? Optional.empty() : violation("pool", pool, "a pool name is " + POOL_ALLOWED);
    }

    public static Optional<Violation> taskId(String taskId) {
        return isId(taskId) ? Optional.empty() : violation("taskId", taskId, "a task id is " + ID_ALLOWED);
    }

    /** An id in a field other than {@code taskId} (a parent's task id, a workflow's id): the task id alphabet. */
    public static Optional<Violation> id(String field, String id) {
        return isId(id) ? Optional.empty() : violation(field, id, "an id is " + ID_ALLOWED);
    }

    /** A task's tenant: the label value alphabet ({@link #LABEL_VALUE}); null (the tenant {@code default}) is valid. */
    public static Optional<Violation> tenant(String tenant) {
        return tenant == null || isLabelValue(tenant) ? Optional.empty()
                : violation("tenant", tenant, "a tenant name is " + LABEL_VALUE_ALLOWED);
    }

    public static Optional<Violation> workerId(String workerId) {
        return isId(workerId) ? Optional.empty() : violation("workerId", workerId, "a worker id is " + ID_ALLOWED);
    }

    /** Whether {@code s} matches {@link #POOL}. */
    public static boolean isPool(String s) {
        return walk(s, 128, POOL_CHARS, false);
    }

    /** Whether {@code s} matches {@link #ID}. */
    public static boolean isId(String s) {
        return walk(s, 255, POOL_CHARS, false);
    }

    /** Whether {@code s} matches {@link #LABEL_NAME}. */
    public static boolean isLabelName(String s) {
        return walk(s, 63, NAME_CHARS, true);
    }

    /** Whether {@code s} matches {@link #LABEL_VALUE}. */
    public static boolean isLabelValue(String s) {
        return walk(s, 63, VALUE_CHARS, true);
    }

    /** A worker's declared concurrency: 1 to {@link #MAX_SLOTS}. */
    public static Optional<Violation> slots(int slots) {
        if (slots >= 1 && slots <= MAX_SLOTS) {
            return Optional.empty();
        }
        return Optional.of(new Violation("slots", "slots is " + slots + "; a worker declares 1 to " + MAX_SLOTS + " slots"));
    }

    /** Labels of a worker or labels a task requires, at most {@link #MAX_LABELS}; an empty map is valid (no labels). */
    public static Optional<Violation> labels(Map<String, String> labels) {
        if (labels == null) {
            return Optional.empty();
        }
        if (labels.size() > MAX_LABELS) {
            return Optional.of(new Violation("labels", labels.size() + " labels; at most " + MAX_LABELS
                    + " labels are allowed"));
        }
        for (Map.Entry<String, String> label : labels.entrySet()) {
            String name = label.getKey();
            if (!isLabelName(name)) {
                return Optional.of(new Violation("labels",
                        describe("label name", name) + "; a label name is " + LABEL_NAME_ALLOWED));
            }
            String value = label.getValue();
            if (!isLabelValue(value)) {
                return Optional.of(new Violation("labels." + name,
                        describe("label value", value) + "; a label value is " + LABEL_VALUE_ALLOWED));
            }
        }
        return Optional.empty();
    }

    /** Attempt numbers start at 1. */
    public static Optional<Violation> attempt(int attempt) {
        if (attempt >= 1) {
            return Optional.empty();
        }
        return Optional.of(new Violation("attempt", "attempt is " + attempt + "; attempts are numbered from 1"));
    }

    // ---- events -------------------------------------------------------------------------------

    public static Optional<Violation> check(TaskSubmitted e) {
        Optional<Violation> v = Violation.first(pool(e.getPool()), taskId(e.getTaskId()), labels(e.getLabels()),
                tenant(e.getTenant()), LimitRules.concurrency(e.getConcurrency()), LimitRules.rateLimits(e.getRateLimits()));
        if (v.isPresent() || e.getRetry() == null || e.getRetry().getMaxAttempts() >= 1) {
            return v;
        }
        return Optional.of(new Violation("retry.maxAttempts",
                "retry.maxAttempts is " + e.getRetry().getMaxAttempts() + "; a task gets at least 1 attempt"));
    }

    /**
     * Every rule of a submission: those of {@link #check(TaskSubmitted)}, and the resources (no
     * negative quantity, each package requirement readable by {@link PackageRequirement}), the
     * preferences (valid labels, weight 1 to {@link #MAX_PREFERENCE_WEIGHT}), the times (a positive
     * timeout, a start tolerance only with a start time) and the retry backoff. The Java client
     * refuses a task that breaks any of them before sending it.
     */
    public static Optional<Violation> checkSubmission(TaskSubmitted e) {
        Optional<Violation> v = check(e);
        if (v.isPresent()) {
            return v;
        }
        return Violation.first(payload(e.getPayload()), resources(e.getResources()), preferences(e.getPreferences()), times(e),
                retry(e.getRetry()), text("submitter", e.getSubmitter(), MAX_SUBMITTER_LENGTH), parents(e),
                e.getWorkflow() == null ? Optional.empty() : id("workflow", e.getWorkflow()));
    }

    /**
     * A task's parents: at most {@link #MAX_PARENTS}, each a valid task id (and pool, when it names one), none
     * named twice, and never the task itself.
     */
    public static Optional<Violation> parents(TaskSubmitted e) {
        List<Dependency> after = e.getAfter();
        if (after == null || after.isEmpty()) {
            return Optional.empty();
        }
        if (after.size() > MAX_PARENTS) {
            return Optional.of(new Violation("after", after.size() + " parents; a task waits for at most " + MAX_PARENTS
                    + " (fan in through an intermediate stage for more)"));
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < after.size(); i++) {
            Dependency d = after.get(i);
            String field = "after[" + i + "]";
            Optional<Violation> v = Violation.first(id(field + ".task", d.getTask()),
                    d.getPool() == null ? Optional.empty() : pool(d.getPool()).map(p -> new Violation(field + ".pool", p.message())));
            if (v.isPresent()) {
                return v;
            }
            String pool = d.getPool() == null ? e.getPool() : d.getPool();
            if (d.getTask().equals(e.getTaskId()) && pool.equals(e.getPool())) {
                return Optional.of(new Violation(field + ".task", field + ".task is the task itself; a task cannot wait for itself"));
            }
            if (!seen.add(pool + "/" + d.getTask())) {
                return Optional.of(new Violation(field + ".task", field + ".task names parent " + d.getTask()
                        + " a second time; name each parent once"));
            }
        }
        return Optional.empty();
    }

    /** A success's result of at most {@link #MAX_RESULT_BYTES}. */
    public static Optional<Violation> result(java.nio.ByteBuffer result) {
        int size = result == null ? 0 : result.remaining();
        if (size > MAX_RESULT_BYTES) {
            return Optional.of(new Violation("result", "result is " + size + " bytes; at most " + MAX_RESULT_BYTES
                    + " (64 KiB) are kept: write large outputs to object storage and return a reference"));
        }
        return Optional.empty();
    }

    /** A payload of at most {@link #MAX_PAYLOAD_BYTES}. */
    public static Optional<Violation> payload(java.nio.ByteBuffer payload) {
        int size = payload == null ? 0 : payload.remaining();
        if (size > MAX_PAYLOAD_BYTES) {
            return Optional.of(new Violation("payload", "payload is " + size + " bytes; at most " + MAX_PAYLOAD_BYTES
                    + " (512 KiB) travel through cronoq: keep large inputs in object storage and submit a reference"));
        }
        return Optional.empty();
    }

    /** A task's resource request; null (no request) is valid. */
    public static Optional<Violation> resources(ResourceRequest r) {
        if (r == null) {
            return Optional.empty();
        }
        Optional<Violation> v = Violation.first(notNegative("resources.cpuMillis", r.getCpuMillis()),
                notNegative("resources.memoryBytes", r.getMemoryBytes()),
                notNegative("resources.diskBytes", r.getDiskBytes()),
                notNegative("resources.gpu", r.getGpu() == null ? null : r.getGpu().longValue()));
        if (v.isPresent() || r.getPackages() == null) {
            return v;
        }
        if (r.getPackages().size() > MAX_PACKAGES) {
            return Optional.of(new Violation("resources.packages", r.getPackages().size() + " package requirements; "
                    + "at most " + MAX_PACKAGES + " are allowed"));
        }
        for (int i = 0; i < r.getPackages().size(); i++) {
            String requirement = r.getPackages().get(i);
            if (requirement != null && requirement.length() > MAX_PACKAGE_LENGTH) {
                return Optional.of(new Violation("resources.packages[" + i + "]", "resources.packages[" + i + "] is "
                        + requirement.length() + " characters; a package requirement is at most " + MAX_PACKAGE_LENGTH));
            }
            v = PackageRequirement.check("resources.packages[" + i + "]", requirement);
            if (v.isPresent()) {
                return v;
            }
        }
        return Optional.empty();
    }

    /** Soft routing preferences: each names valid labels and weighs 1 to {@link #MAX_PREFERENCE_WEIGHT}. */
    public static Optional<Violation> preferences(List<Preference> preferences) {
        if (preferences == null) {
            return Optional.empty();
        }
        if (preferences.size() > MAX_PREFERENCES) {
            return Optional.of(new Violation("preferences", preferences.size() + " preferences; at most "
                    + MAX_PREFERENCES + " are allowed"));
        }
        for (int i = 0; i < preferences.size(); i++) {
            String field = "preferences[" + i + "]";
            Preference p = preferences.get(i);
            if (p.getLabels() == null || p.getLabels().isEmpty()) {
                return Optional.of(new Violation(field + ".labels", field + ".labels is empty; a preference names "
                        + "at least one label a worker should carry"));
            }
            Optional<Violation> v = labels(p.getLabels());
            if (v.isPresent()) {
                return Optional.of(new Violation(field + "." + v.get().field(), v.get().message()));
            }
            if (p.getWeight() < 1 || p.getWeight() > MAX_PREFERENCE_WEIGHT) {
                return Optional.of(new Violation(field + ".weight", field + ".weight is " + p.getWeight()
                        + "; a preference weighs 1 to " + MAX_PREFERENCE_WEIGHT + " (as in Kubernetes' preferred affinity)"));
            }
        }
        return Optional.empty();
    }

    private static Optional<Violation> times(TaskSubmitted e) {
        if (e.getTimeoutMs() != null && e.getTimeoutMs() <= 0) {
            return Optional.of(new Violation("timeoutMs", "timeoutMs is " + e.getTimeoutMs()
                    + "; a timeout is a positive number of milliseconds"));
        }
        if (e.getStartToleranceMs() != null) {
            if (e.getStartAt() == null) {
                return Optional.of(new Violation("startToleranceMs", "startToleranceMs is set without startAt; "
                        + "a tolerance belongs to a fixed start time"));
            }
            if (e.getStartToleranceMs() < 0) {
                return Optional.of(new Violation("startToleranceMs", "startToleranceMs is " + e.getStartToleranceMs()
                        + "; a tolerance is 0 or more milliseconds"));
            }
        }
        return Optional.empty();
    }

    private static Optional<Violation> retry(RetryPolicy r) {
        if (r == null) {
            return Optional.empty();
        }
        if (r.getInitialBackoffMs() < 0) {
            return Optional.of(new Violation("retry.initialBackoffMs", "retry.initialBackoffMs is "
                    + r.getInitialBackoffMs() + "; a backoff is 0 or more milliseconds"));
        }
        if (r.getMaxBackoffMs() < r.getInitialBackoffMs()) {
            return Optional.of(new Violation("retry.maxBackoffMs", "retry.maxBackoffMs is " + r.getMaxBackoffMs()
                    + ", below retry.initialBackoffMs " + r.getInitialBackoffMs() + "; the cap is at least the first backoff"));
        }
        if (!(r.getMultiplier() >= 1.0) || Double.isInfinite(r.getMultiplier())) {
            return Optional.of(new Violation("retry.multiplier", "retry.multiplier is " + r.getMultiplier()
                    + "; backoff grows by a finite factor of 1 or more"));
        }
        return Optional.empty();
    }

    private static Optional<Violation> notNegative(String field, Long value) {
        if (value == null || value >= 0) {
            return Optional.empty();
        }
        return Optional.of(new Violation(field, field + " is " + value + "; a request is 0 or more"));
    }

    public static Optional<Violation> check(TaskCancelRequested e) {
        return Violation.first(pool(e.getPool()), taskId(e.getTaskId()), text("reason", e.getReason(), MAX_REASON_LENGTH));
    }

    public static Optional<Violation> check(WorkerRegistered e) {
        return Violation.first(pool(e.getPool()), workerId(e.getWorkerId()), slots(e.getSlots()), labels(e.getLabels()),
                published(e.getResources()), AddressRules.check("address", e.getAddress()));
    }

    /**
     * {@code text} kept to {@code max} characters: its first characters and a note of how many were
     * cut ({@code … (12345 more characters cut)}), so a report's text stays bounded in the stores and
     * the journal; {@code null} and text within the bound are returned as they are.
     */
    public static String shortened(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        String note = "… (" + (text.length() - max) + " more characters cut)";
        int keep = Math.max(0, max - note.length());
        if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
            keep--; // never split a character in two
        }
        return text.substring(0, keep) + note;
    }

    /** Free text of at most {@code max} characters; null (none) is valid. */
    public static Optional<Violation> text(String field, String text, int max) {
        if (text == null || text.length() <= max) {
            return Optional.empty();
        }
        return Optional.of(new Violation(field, field + " is " + text.length() + " characters; at most " + max
                + " are allowed"));
    }

    /** What a worker published: at most {@link #MAX_WORKER_GPUS} GPUs and {@link #MAX_WORKER_PACKAGES} packages. */
    private static Optional<Violation> published(WorkerResources r) {
        if (r == null) {
            return Optional.empty();
        }
        if (r.getGpus() != null && r.getGpus().size() > MAX_WORKER_GPUS) {
            return Optional.of(new Violation("resources.gpus", r.getGpus().size() + " GPUs; a worker publishes at most "
                    + MAX_WORKER_GPUS));
        }
        if (r.getPackages() != null && r.getPackages().size() > MAX_WORKER_PACKAGES) {
            return Optional.of(new Violation("resources.packages", r.getPackages().size() + " installed packages; a "
                    + "worker publishes at most " + MAX_WORKER_PACKAGES));
        }
        return Optional.empty();
    }

    public static Optional<Violation> check(WorkerHeartbeat e) {
        return Violation.first(pool(e.getPool()), workerId(e.getWorkerId()));
    }

    public static Optional<Violation> check(WorkerDraining e) {
        return Violation.first(pool(e.getPool()), workerId(e.getWorkerId()));
    }

    public static Optional<Violation> check(WorkerLeft e) {
        return Violation.first(pool(e.getPool()), workerId(e.getWorkerId()));
    }

    public static Optional<Violation> check(AttemptStarted e) {
        return Violation.first(pool(e.getPool()), taskId(e.getTaskId()), workerId(e.getWorkerId()), attempt(e.getAttempt()));
    }

    public static Optional<Violation> check(AttemptSucceeded e) {
        return Violation.first(pool(e.getPool()), taskId(e.getTaskId()), workerId(e.getWorkerId()), attempt(e.getAttempt()),
                result(e.getResult()));
    }

    public static Optional<Violation> check(AttemptFailed e) {
        return Violation.first(pool(e.getPool()), taskId(e.getTaskId()), workerId(e.getWorkerId()), attempt(e.getAttempt()));
    }

    // ---- helpers ------------------------------------------------------------------------------

    // Character classes as bits of one ASCII table: a lookup per character on the hot path.
    private static final byte ALNUM = 1;
    private static final byte DOT_UNDERSCORE_DASH = 2;
    private static final byte COLON = 4;
    private static final byte SLASH = 8;
    private static final int POOL_CHARS = ALNUM | DOT_UNDERSCORE_DASH | COLON;
    private static final int NAME_CHARS = ALNUM | DOT_UNDERSCORE_DASH | SLASH;
    private static final int VALUE_CHARS = ALNUM | DOT_UNDERSCORE_DASH;
    private static final byte[] ASCII = new byte[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            ASCII[c] = ALNUM;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            ASCII[c] = ALNUM;
            ASCII[Character.toUpperCase(c)] = ALNUM;
        }
        ASCII['.'] = DOT_UNDERSCORE_DASH;
        ASCII['_'] = DOT_UNDERSCORE_DASH;
        ASCII['-'] = DOT_UNDERSCORE_DASH;
        ASCII[':'] = COLON;
        ASCII['/'] = SLASH;
    }

    /**
     * 1 to {@code max} characters of the {@code allowed} classes, the first (and the last, if
     * {@code alnumLast}) a letter or digit.
     */
    private static boolean walk(String s, int max, int allowed, boolean alnumLast) {
        if (s == null) {
            return false;
        }
        int n = s.length();
        if (n == 0 || n > max || !is(s.charAt(0), ALNUM) || (alnumLast && !is(s.charAt(n - 1), ALNUM))) {
            return false;
        }
        for (int i = 1; i < n; i++) {
            if (!is(s.charAt(i), allowed)) {
                return false;
            }
        }
        return true;
    }

    private static boolean is(char c, int classes) {
        return c < 128 && (ASCII[c] & classes) != 0;
    }

    private static Optional<Violation> violation(String field, String value, String allowed) {
        return Optional.of(new Violation(field, describe(field, value) + "; " + allowed));
    }

    private static String describe(String what, String value) {
        if (value == null || value.isEmpty()) {
            return what + " is empty";
        }
        String shown = value.length() > 64 ? value.substring(0, 64) + "..." : value;
        return what + " '" + shown + "' is not allowed";
    }

}
