package io.cronoq.gateway;

import io.cronoq.scheduler.auth.Credential;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/** What the routes about pools share: reading every pool or one, and answering an admin's write. */
final class PoolRoutes {

    /** Who sets a pool's sharing or limits through an open gateway, for the journal. */
    static final String OPEN_SETTER = "gateway";

    /** What makes a pool known, for a 404 about one that is not. */
    static final String WHEN_A_POOL_EXISTS =
            "; a pool exists once a worker registered in it or a task was submitted to it";

    private PoolRoutes() {}

    /**
     * Answers {@code every} when no pool is asked for, else the one pool's view as a list of it alone; a pool no
     * instance knows is {@code missing}.
     */
    static <V> void everyOrOne(Context ctx, String pool, Supplier<?> every, Supplier<Optional<V>> one,
                               Function<List<V>, ?> asList, Supplier<ApiException> missing) {
        if (pool == null) {
            ctx.json(every.get());
            return;
        }
        ctx.json(asList.apply(List.of(one.get().orElseThrow(missing))));
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
