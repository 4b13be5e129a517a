package io.cronoq.gateway;

import io.cronoq.events.GangSubmitted;
import io.cronoq.scheduler.auth.Credential;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code /v1/gangs}: submit a gang (one record on the submissions topic holding every member) and read one,
 * assembled from its members' task records ({@code <id>-0} … {@code <id>-<size - 1>}).
 */
final class GangRoutes {

    private final GatewayContext context;
    private final GangParser parser;

    GangRoutes(GatewayContext context) {
        this.context = context;
        this.parser = new GangParser(context.clock()::instant, context.gangMaxSize());
    }

    /**
     * {@code POST /v1/gangs}: 202 with the gang's id, pool and member ids once the gang is durably on the topic.
     * Submitter and tenant come from the calling credential as for a task ({@link TaskRoutes#submit}). A member id
     * that an existing task of the pool already has is 400 on {@code id}, unless that task is the same gang's member
     * (the same gang sent again is one gang); a gang the credentials say could never run is 400 too
     * ({@link GangFeasibility}). Nothing is written on any refusal.
     */
    void submit(Context ctx) {
        Credential caller = ctx.attribute(Access.CALLER);
        GangSubmitted gang = parser.parse(ctx.bodyAsBytes(), caller);
        GangFeasibility.check(gang, context.credentials());
        refuseTakenIds(gang);
        context.commands().submitGang(gang);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", gang.getGangId());
        body.put("pool", gang.getPool());
        body.put("members", GangParser.memberIds(gang));
        ctx.status(202).json(body);
    }

    /** Refuses a gang whose member id is another task's in the pool, looked up as {@code GET /v1/tasks/{id}} does. */
    private void refuseTakenIds(GangSubmitted gang) {
        String id = gang.getGangId();
        for (String memberId : GangParser.memberIds(gang)) {
            Optional<TaskView> taken = context.cluster().task(memberId, gang.getPool());
            if (taken.isPresent() && (taken.get().gang() == null || !taken.get().gang().id().equals(id))) {
                throw ApiException.invalid("id", "task " + memberId + " already exists in pool " + gang.getPool()
                        + " and is no member of gang " + id + "; the members' ids are " + id + "-0 to " + id + "-"
                        + (gang.getMembers().size() - 1) + ": choose another gang id");
            }
        }
    }

    /** {@code GET /v1/gangs/{id}[?pool=]}: 404 when member 0 is unknown or belongs to no gang of that id. */
    void get(Context ctx) {
        String id = Params.id(ctx);
        String pool = Params.pool(ctx);
        StateReader reader = context.reader(ctx);
        TaskView first = reader.task(GangParser.memberId(id, 0), pool)
                .filter(t -> t.gang() != null && t.gang().id().equals(id))
                .orElseThrow(() -> notFound(id, pool));
        TaskView.GangView gang = first.gang();
        List<GangView.MemberView> members = new ArrayList<>(gang.size());
        List<String> states = new ArrayList<>(gang.size());
        for (int rank = 0; rank < gang.size(); rank++) {
            String memberId = GangParser.memberId(id, rank);
            TaskView member = rank == 0 ? first : reader.task(memberId, first.pool()).orElse(null);
            members.add(member(memberId, rank, member));
            states.add(member == null ? null : member.state());
        }
        String state = GangStates.of(states);
        String reason = GangStates.waiting(state) && first.waiting() != null ? first.waiting().reason() : null;
        ctx.json(new GangView(id, first.pool(), gang.size(), gang.placement(), gang.sameLabel(), state, reason,
                members));
    }

    private static GangView.MemberView member(String taskId, int rank, TaskView task) {
        if (task == null) {
            return new GangView.MemberView(taskId, rank, null, null, null);
        }
        List<TaskView.AttemptView> attempts = task.attempts();
        TaskView.AttemptView last = attempts == null || attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
        return new GangView.MemberView(taskId, rank, task.state(), last == null ? null : last.worker(),
                last == null ? null : last.attempt());
    }

    private static ApiException notFound(String id, String pool) {
        return ApiException.notFound("no gang " + id + (pool == null ? "" : " in pool " + pool)
                + " (no task " + GangParser.memberId(id, 0) + " that is its member); a gang just submitted appears "
                + "within moments, and a finished one is kept for the scheduler's cronoq.task.retention.ms (7 days by "
                + "default)");
    }
}
