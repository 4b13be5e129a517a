package io.cronoq.gateway;

import java.util.List;
import java.util.Map;

/**
 * A task as {@code GET /v1/tasks/{id}} shows it. Times are ISO-8601 instants, durations ISO-8601
 * durations; a field that does not apply is {@code null}.
 *
 * @param tenant      the tenant it runs for, whose fair share and quotas it counts against ({@code default} when
 *                    the task and its submitter's token named none)
 * @param maxAttempts attempts in all, when the task has a retry policy (else the scheduler's default applies)
 * @param backoff     the wait before the first retry, when the task has a retry policy
 * @param maxBackoff  the longest wait between retries (the backoff grows up to it), with the retry policy
 * @param concurrency the concurrency keys it holds while an attempt runs
 * @param rateLimits  the rate limits whose units each of its attempts takes when assigned
 * @param waiting     why and since when it waits, only while {@code state} is {@code WAITING} or {@code BLOCKED}
 * @param attempts    every attempt so far, oldest first
 * @param gang        its place in its gang (POST /v1/gangs), set by the scheduler; {@code null} for a task of its own
 * @param after       the parents it waits for, each with how it must end (empty: none)
 * @param onParentUnmet {@code cancel} (the default) or {@code run}: what it does when a parent ends otherwise than
 *                    asked; {@code null} for a task with no parent
 * @param unmetParents how many of its parents have not ended yet, while it is {@code BLOCKED}
 * @param workflow    the workflow it was submitted in (POST /v1/workflows), or {@code null}
 * @param result      what its last attempt returned with its success, as text ({@code GET /v1/tasks/{id}} only);
 *                    {@code null} when none, or when it is not UTF-8 text (then {@code resultBase64})
 * @param resultBase64 the result as base64, when it is not UTF-8 text
 */
public record TaskView(String id, String pool, String state, Map<String, String> labels, ResourcesView resources,
                       String priority, int payloadBytes, String submitter, String tenant, String submittedAt,
                       String updatedAt,
                       String deadline, String notBefore, String startAt, String tolerance, String timeout,
                       Integer maxAttempts, String backoff, String maxBackoff, List<PreferenceView> prefer,
                       List<ConcurrencyView> concurrency, List<RateLimitView> rateLimits,
                       WaitingView waiting, List<AttemptView> attempts, GangView gang, List<ParentView> after,
                       String onParentUnmet, Integer unmetParents, String workflow, String result,
                       String resultBase64) {

    /** A task of its own, in no workflow and after no parent. */
    public TaskView(String id, String pool, String state, Map<String, String> labels, ResourcesView resources,
                    String priority, int payloadBytes, String submitter, String tenant, String submittedAt,
                    String updatedAt, String deadline, String notBefore, String startAt, String tolerance,
                    String timeout, Integer maxAttempts, String backoff, String maxBackoff, List<PreferenceView> prefer,
                    List<ConcurrencyView> concurrency, List<RateLimitView> rateLimits, WaitingView waiting,
                    List<AttemptView> attempts, GangView gang) {
        this(id, pool, state, labels, resources, priority, payloadBytes, submitter, tenant, submittedAt, updatedAt,
                deadline, notBefore, startAt, tolerance, timeout, maxAttempts, backoff, maxBackoff, prefer, concurrency,
                rateLimits, waiting, attempts, gang, List.of(), null, null, null, null, null);
    }

    /** This view with the task's result (text, or base64 for bytes that are not UTF-8 text). */
    public TaskView withResult(java.nio.ByteBuffer bytes) {
        if (bytes == null) {
            return this;
        }
        String text = ViewMapper.utf8(bytes);
        return new TaskView(id, pool, state, labels, resources, priority, payloadBytes, submitter, tenant, submittedAt,
                updatedAt, deadline, notBefore, startAt, tolerance, timeout, maxAttempts, backoff, maxBackoff, prefer,
                concurrency, rateLimits, waiting, attempts, gang, after, onParentUnmet, unmetParents, workflow, text,
                text != null ? null : java.util.Base64.getEncoder().encodeToString(ViewMapper.bytes(bytes)));
    }

    /** A parent a task waits for: its id, its pool, and how it must end ({@code succeeded}, {@code failed}, {@code finished}). */
    public record ParentView(String task, String pool, String when) {}

    /**
     * Why a task waits: the scheduler's reason, since when, and for how long by the gateway's clock; and
     * when it will start, from the pool's last forecast.
     *
     * @param position       how many tasks the forecast places before it on the workers it can use (tasks of
     *                       other tenants that win by share count; tasks it does not compete with do not)
     * @param estimatedStart its start's p10, p50 and p90, or {@code null} when nothing can be said
     * @param estimate       in one line, what the estimate rests on, or why there is none
     */
    public record WaitingView(String reason, String since, Long waitingMs, Long position, StartView estimatedStart,
                              String estimate) {

        /** Why and since when, with no estimate yet. */
        public WaitingView(String reason, String since, Long waitingMs) {
            this(reason, since, waitingMs, null, null, null);
        }
    }

    /** When a task will start: one future in ten starts it before {@code p10}, one in ten after {@code p90}. */
    public record StartView(String p10, String p50, String p90) {

        /** The start an estimate gives, or {@code null} when it gives none. */
        static StartView of(io.cronoq.scheduler.policy.forecast.Forecast.Estimate e) {
            return e.known() ? new StartView(ViewMapper.text(e.p10()), ViewMapper.text(e.p50()), ViewMapper.text(e.p90()))
                    : null;
        }
    }

    /** This view with a start estimate added to its {@code waiting}; unchanged when it does not wait. */
    public TaskView withEstimate(io.cronoq.scheduler.policy.forecast.Forecast.Estimate e) {
        if (waiting == null || e == null) {
            return this;
        }
        WaitingView w = new WaitingView(waiting.reason(), waiting.since(), waiting.waitingMs(), e.position(),
                StartView.of(e), e.reason());
        return new TaskView(id, pool, state, labels, resources, priority, payloadBytes, submitter, tenant, submittedAt,
                updatedAt, deadline, notBefore, startAt, tolerance, timeout, maxAttempts, backoff, maxBackoff, prefer,
                concurrency, rateLimits, w, attempts, gang, after, onParentUnmet, unmetParents, workflow, result,
                resultBase64);
    }

    /**
     * A member's place in its gang.
     *
     * @param id        the gang's id (the member's task id is {@code <id>-<rank>})
     * @param size      how many members the gang has
     * @param rank      this member's index, 0 to size - 1
     * @param placement {@code ANY}, {@code SPREAD} or {@code PACK}
     * @param sameLabel the label key whose one value every member's worker carries, or {@code null}
     */
    public record GangView(String id, int size, int rank, String placement, String sameLabel) {}

    /** A soft routing preference. */
    public record PreferenceView(Map<String, String> labels, int weight) {}

    /**
     * A concurrency key the task holds while an attempt of it runs.
     *
     * @param max the most attempts holding the key at once that the task allows, {@code null} for the key's limit
     *            in the pool (else 1)
     */
    public record ConcurrencyView(String key, Integer max) {}

    /** A rate limit the task takes {@code units} of when an attempt is assigned. */
    public record RateLimitView(String name, int units) {}

    /**
     * One attempt of a task.
     *
     * @param group the labels of the group it was assigned to
     */
    public record AttemptView(int attempt, String worker, Map<String, String> group, long generation,
                              String assignedAt, String startedAt, String finishedAt, String outcome, String error) {}
}
