package io.cronoq.gateway;

import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerState;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code /v1/workers}: list, read one, and drain (a {@code WorkerDraining} on the workers topic). */
record WorkerRoutes(GatewayContext context) {

    /** {@code GET /v1/workers[?pool=&state=]}. */
    void list(Context ctx) {
        String pool = Params.pool(ctx);
        WorkerState state = Params.workerState(ctx);
        List<WorkerView> workers = context.reader(ctx).workers(pool);
        if (state != null) {
            workers = workers.stream().filter(w -> w.state().equals(state.name())).toList();
        }
        ctx.json(new WorkerList(workers));
    }

    /** {@code GET /v1/workers/{id}[?pool=]}. */
    void get(Context ctx) {
        ctx.json(find(ctx, context.reader(ctx)));
    }

    /** {@code POST /v1/workers/{id}/drain[?pool=]}: 202 once the drain is on the topic. */
    void drain(Context ctx) {
        WorkerView worker = find(ctx, context.cluster());
        if (!worker.state().equals(WorkerState.ACTIVE.name()) && !worker.state().equals(WorkerState.DRAINING.name())) {
            throw ApiException.invalid("id", "worker " + worker.id() + " in pool " + worker.pool() + " is "
                    + worker.state() + "; only an ACTIVE or DRAINING worker can drain");
        }
        context.commands().drain(WorkerDraining.newBuilder()
                .setWorkerId(worker.id())
                .setPool(worker.pool())
                .setGeneration(worker.generation())
                .setAt(context.clock().instant())
                .build());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", worker.id());
        body.put("pool", worker.pool());
        body.put("generation", worker.generation());
        ctx.status(202).json(body);
    }

    private static WorkerView find(Context ctx, StateReader reader) {
        String id = Params.id(ctx);
        String pool = Params.pool(ctx);
        List<WorkerView> found = reader.workers(pool).stream().filter(w -> w.id().equals(id)).toList();
        if (found.isEmpty()) {
            throw ApiException.notFound("no worker " + id + (pool == null ? "" : " in pool " + pool));
        }
        if (found.size() > 1) {
            throw ApiException.invalid("pool", "worker id " + id + " is registered in pools "
                    + found.stream().map(WorkerView::pool).toList() + "; name one with ?pool=");
        }
        return found.get(0);
    }
}
