package io.cronoq.gateway;

import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import io.cronoq.scheduler.query.TaskCursor;
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** Reads and checks path and query parameters; a bad one is a 400 naming it. */
final class Params {

    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;

    private Params() {}

    /** The {@code pool} query parameter, or {@code null}; checked against the pool rule. */
    static String pool(Context ctx) {
        String pool = ctx.queryParam("pool");
        if (pool == null || pool.isEmpty()) {
            return null;
        }
        Optional<Violation> broken = Rules.pool(pool);
        if (broken.isPresent()) {
            throw ApiException.invalid("pool", broken.get().message());
        }
        return pool;
    }

    /** The {@code {id}} path parameter, checked against the id rule. */
    static String id(Context ctx) {
        String id = ctx.pathParam("id");
        if (!Rules.isId(id)) {
            throw ApiException.invalid("id", "'" + id + "' is not an id; an id is 1 to 255 characters: letters, "
                    + "digits, '.', '_', ':' or '-', starting with a letter or digit");
        }
        return id;
    }

    static TaskState taskState(Context ctx) {
        return enumParam(ctx, "state", TaskState.class, TaskState.values());
    }

    static WorkerState workerState(Context ctx) {
        return enumParam(ctx, "state", WorkerState.class, WorkerState.values());
    }

    static int limit(Context ctx) {
        return count(ctx, "limit", DEFAULT_LIMIT, MAX_LIMIT);
    }

    /** The query parameter {@code name}: a whole number from 1 to {@code max}, or {@code absent} when not given. */
    static int count(Context ctx, String name, int absent, int max) {
        String text = ctx.queryParam(name);
        if (text == null || text.isEmpty()) {
            return absent;
        }
        try {
            int value = Integer.parseInt(text);
            if (value >= 1 && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.invalid(name, name + " '" + text + "' is not a whole number from 1 to " + max);
    }

    /**
     * How many concurrency keys ({@code keys}) and waiting classes ({@code classes}) a pool's view lists: each
     * query parameter 1 to {@link ListCaps#MAX}, {@link ListCaps#DEFAULT} when not given.
     */
    static ListCaps caps(Context ctx) {
        return new ListCaps(count(ctx, "keys", ListCaps.DEFAULT_KEYS, ListCaps.MAX),
                count(ctx, "classes", ListCaps.DEFAULT_CLASSES, ListCaps.MAX));
    }

    /** As {@link #caps} for a view that lists keys but no classes ({@code /v1/limits}): only {@code keys} is read. */
    static ListCaps keyCaps(Context ctx) {
        return new ListCaps(count(ctx, "keys", ListCaps.DEFAULT_KEYS, ListCaps.MAX), ListCaps.DEFAULT_CLASSES);
    }

    /** The {@code workflow} query parameter, checked against the id rule, or {@code null}. */
    static String workflow(Context ctx) {
        String workflow = ctx.queryParam("workflow");
        if (workflow == null || workflow.isEmpty()) {
            return null;
        }
        Rules.id("workflow", workflow).ifPresent(v -> {
            throw ApiException.invalid("workflow", v.message());
        });
        return workflow;
    }

    static TaskCursor before(Context ctx) {
        String token = ctx.queryParam("before");
        if (token == null || token.isEmpty()) {
            return null;
        }
        try {
            return TaskCursor.parse(token);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("before", e.getMessage());
        }
    }

    private static <E extends Enum<E>> E enumParam(Context ctx, String name, Class<E> type, E[] values) {
        String text = ctx.queryParam(name);
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return Enum.valueOf(type, text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid(name, name + " '" + text + "' is not one of " + Arrays.toString(values));
        }
    }
}
