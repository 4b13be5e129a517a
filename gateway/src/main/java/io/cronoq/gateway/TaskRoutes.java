package io.cronoq.gateway;

import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.query.TaskFilter;
import io.cronoq.schemas.rules.Rules;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** {@code /v1/tasks}: submit and cancel (written to the submissions topic), read one or a page. */
final class TaskRoutes {

    static final Set<String> CANCELLABLE = Set.of(TaskState.BLOCKED.name(), TaskState.WAITING.name(),
            TaskState.ASSIGNED.name(), TaskState.RUNNING.name());

    private final GatewayContext context;
    private final SubmissionParser parser;

    TaskRoutes(GatewayContext context) {
        this.context = context;
        this.parser = new SubmissionParser(context.clock()::instant);
    }

    /**
     * {@code POST /v1/tasks}: 202 with the id once the submission is durably on the topic. A body
     * naming a field the server sets is 400 ({@link SubmissionParser#SERVER_FIELDS}). With tokens
     * configured the task is journaled as submitted by the calling credential (a body naming a
     * {@code submitter} is 400 for it), and runs for the credential's tenant when it is bound to one
     * ({@link TenantBinding}); an open gateway keeps the body's submitter (or none) and tenant. Every parent named in
     * {@code after} must be a known task ({@link Parents}): an unknown one is 400, nothing written.
     */
    void submit(Context ctx) {
        Credential caller = ctx.attribute(Access.CALLER);
        TaskSubmitted task = parser.parse(ctx.bodyAsBytes(), caller == null ? null : caller.name());
        if (caller != null) {
            task.setSubmitter(caller.name());
            task.setTenant(TenantBinding.tenant(caller, task.getTenant()));
        }
        Parents.resolve(task, context.cluster(), java.util.Set.of(), "");
        context.commands().submit(task);
        ctx.status(202).json(accepted(task.getTaskId(), task.getPool()));
    }

    /** {@code GET /v1/tasks/{id}[?pool=]}. */
    void get(Context ctx) {
        String id = Params.id(ctx);
        String pool = Params.pool(ctx);
        ctx.json(context.reader(ctx).task(id, pool).orElseThrow(() -> notFound(id, pool)));
    }

    /** {@code GET /v1/tasks?pool=&state=&limit=&before=&workflow=}: newest first. */
    void list(Context ctx) {
        TaskFilter filter = new TaskFilter(Params.pool(ctx), Params.taskState(ctx), Params.limit(ctx),
                Params.before(ctx), Params.workflow(ctx));
        ctx.json(context.reader(ctx).tasks(filter));
    }

    /** {@code DELETE /v1/tasks/{id}[?pool=&reason=]}: 202 once the cancel request is on the topic. */
    void cancel(Context ctx) {
        String id = Params.id(ctx);
        String reason = ctx.queryParam("reason");
        Rules.text("reason", reason, Rules.MAX_REASON_LENGTH).ifPresent(v -> {
            throw ApiException.invalid(v.field(), v.message());
        });
        TaskView task = context.cluster().task(id, Params.pool(ctx)).orElseThrow(() -> notFound(id, null));
        if (!CANCELLABLE.contains(task.state())) {
            throw ApiException.invalid("id", "task " + id + " is already " + task.state() + "; only a BLOCKED, "
                    + "WAITING, ASSIGNED or RUNNING task can be cancelled");
        }
        context.commands().cancel(TaskCancelRequested.newBuilder()
                .setTaskId(id)
                .setPool(task.pool())
                .setReason(reason)
                .setRequestedAt(context.clock().instant())
                .build());
        ctx.status(202).json(accepted(id, task.pool()));
    }

    private static Map<String, Object> accepted(String id, String pool) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("pool", pool);
        return body;
    }

    private static ApiException notFound(String id, String pool) {
        return ApiException.notFound("no task " + id + (pool == null ? "" : " in pool " + pool)
                + "; a task just submitted appears within moments, and a finished one is kept for the"
                + " scheduler's cronoq.task.retention.ms (7 days by default)");
    }
}
