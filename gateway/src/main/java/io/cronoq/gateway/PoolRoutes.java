package io.cronoq.gateway;

import io.cronoq.scheduler.auth.Credential;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/** What the routes about pools share: reading every pool or one, and answering an admin's write. */
final class PoolRoutes {

    /** Who sets a pool's sharing or limits through an open gateway, for the journal. */
    static final String OPEN_SETTER = "gateway";

    private PoolRoutes() {}

    /**
     * Answers, from the reader for this request, {@code every} pool's view when no {@code pool} is asked for, else
     * that pool's view as a list of it alone stamped with the gateway's time ({@code asList} of the time and the
     * list); a pool no instance knows is a 404 naming {@code notFoundField} (none when null).
     */
    static <V> void everyOrOne(Context ctx, GatewayContext context, String pool, Function<StateReader, ?> every,
                               Function<StateReader, Optional<V>> one, BiFunction<String, List<V>, ?> asList,
                               String notFoundField) {
        StateReader reader = context.reader(ctx);
        if (pool == null) {
            ctx.json(every.apply(reader));
            return;
        }
        V view = one.apply(reader).orElseThrow(() -> ApiException.notFound(notFoundField, "no pool " + pool
                + "; a pool exists once a worker registered in it, a task was submitted to it or its sharing or "
                + "limits were set (a pool just named appears within moments)"));
        ctx.json(asList.apply(context.clock().instant().toString(), List.of(view)));
    }

    /** Who the caller is, for the journal of what it sets: its credential's name, or {@link #OPEN_SETTER}. */
    static String setter(Context ctx) {
        Credential caller = ctx.attribute(Access.CALLER);
        return caller == null ? OPEN_SETTER : caller.name();
    }

    /** 202 with what was written (the fields in {@code body}), who set it and when: it is on the topic. */
    static void accepted(Context ctx, Map<String, Object> body, String setBy, Instant setAt) {
        body.put("setBy", setBy);
        body.put("setAt", setAt.toString());
        ctx.status(202).json(body);
    }
}
