package io.cronoq.gateway;

import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.query.TaskFilter;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code /v1/workflows}: a graph of tasks in one request. Submitted parents first, read back as every task's state,
 * and cancelled as a whole (what has not finished). A workflow's tasks are {@code <id>:<name>} in its pool, so
 * reading one is one range of its pool's keys, and sending one again adds only what is missing.
 */
final class WorkflowRoutes {

    private final GatewayContext context;
    private final WorkflowParser parser;

    WorkflowRoutes(GatewayContext context) {
        this.context = context;
        this.parser = new WorkflowParser(context.clock()::instant);
    }

    /**
     * {@code POST /v1/workflows}: 202 with the workflow's id, pool and task ids once every task is durably on the
     * topic. Submitter and tenant come from the calling credential as for a task ({@link TaskRoutes#submit}); a
     * parent outside the workflow must be a known task ({@link Parents}). Nothing is written on any refusal.
     */
    void submit(Context ctx) {
        Credential caller = ctx.attribute(Access.CALLER);
        WorkflowParser.Workflow workflow = parser.parse(ctx.bodyAsBytes(), caller == null ? null : caller.name());
        Set<String> sent = new HashSet<>();
        List<String> ids = new ArrayList<>(workflow.tasks().size());
        for (TaskSubmitted task : workflow.tasks()) {
            if (caller != null) {
                task.setSubmitter(caller.name());
                task.setTenant(TenantBinding.tenant(caller, task.getTenant()));
            }
            String name = task.getTaskId().substring(workflow.id().length() + 1);
            GangMembers.within("tasks[" + name + "]", () -> {
                Parents.resolve(task, context.cluster(), sent, "");
                return task;
            });
            sent.add(task.getTaskId());
            ids.add(task.getTaskId());
        }
        context.commands().submitAll(workflow.tasks());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", workflow.id());
        body.put("pool", workflow.pool());
        body.put("tasks", ids);
        ctx.status(202).json(body);
    }

    /** {@code GET /v1/workflows/{id}?pool=}: the workflow's tasks, parents before children, with its overall state. */
    void get(Context ctx) {
        String id = Params.id(ctx);
        String pool = requiredPool(ctx);
        ctx.json(view(id, pool));
    }

    /**
     * {@code DELETE /v1/workflows/{id}?pool=&reason=}: 202 once a cancel request for each task that has not finished
     * is on the topic; the children of a cancelled task are cancelled with it by the scheduler, so this also stops
     * what would have started later.
     */
    void cancel(Context ctx) {
        String id = Params.id(ctx);
        String pool = requiredPool(ctx);
        String reason = ctx.queryParam("reason");
        io.cronoq.schemas.rules.Rules.text("reason", reason, io.cronoq.schemas.rules.Rules.MAX_REASON_LENGTH)
                .ifPresent(v -> {
                    throw ApiException.invalid(v.field(), v.message());
                });
        WorkflowView view = view(id, pool);
        List<String> cancelled = new ArrayList<>();
        for (TaskView task : view.tasks()) {
            if (TaskRoutes.CANCELLABLE.contains(task.state())) {
                context.commands().cancel(TaskCancelRequested.newBuilder().setTaskId(task.id()).setPool(pool)
                        .setReason(reason == null ? "workflow " + id + " cancelled" : reason)
                        .setRequestedAt(context.clock().instant()).build());
                cancelled.add(task.id());
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("pool", pool);
        body.put("cancelled", cancelled);
        ctx.status(202).json(body);
    }

    private WorkflowView view(String id, String pool) {
        TaskPage page = context.cluster().tasks(new TaskFilter(pool, null, WorkflowParser.MAX_TASKS, null, id));
        if (page.tasks().isEmpty()) {
            throw ApiException.notFound("no workflow " + id + " in pool " + pool + "; one just submitted appears within "
                    + "moments, and its tasks are kept for the scheduler's cronoq.task.retention.ms after they finish");
        }
        return WorkflowView.of(id, pool, page.tasks());
    }

    private static String requiredPool(Context ctx) {
        String pool = Params.pool(ctx);
        if (pool == null) {
            throw ApiException.invalid("pool", "pool is required: a workflow's tasks live in its pool (?pool=...)");
        }
        return pool;
    }
}
