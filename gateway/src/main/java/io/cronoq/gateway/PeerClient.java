package io.cronoq.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.cronoq.scheduler.query.TaskFilter;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Asks another scheduler instance's gateway (at its {@code application.server}) for what only its
 * stores hold, over the public API with {@value #SCOPE_HEADER}{@code : local} so it answers from its
 * own stores and never forwards again. The caller's {@code Authorization} header goes along, so the
 * peer checks the same credential. A peer that does not answer well makes the caller UNAVAILABLE.
 */
final class PeerClient {

    /** The header that asks an instance to answer from its own stores only. */
    static final String SCOPE_HEADER = "X-Cronoq-Scope";
    static final String LOCAL = "local";
    /** The Authorization header of the request being served on this thread, forwarded to peers. */
    static final ThreadLocal<String> CALLER = new ThreadLocal<>();

    private final HttpClient http;
    private final Duration timeout;

    private final String scheme;

    /** @param tls the context to call peers over HTTPS with, or {@code null} for plain HTTP */
    PeerClient(Duration timeout, SSLContext tls) {
        this.timeout = timeout;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        if (tls != null) {
            builder.sslContext(tls);
        }
        this.http = builder.build();
        this.scheme = tls == null ? "http://" : "https://";
    }

    /** A peer's last liveness answer and when it was had: readiness and the metrics scrape share it. */
    private record Liveness(boolean answers, long checkedAtNanos) {}

    private static final long LIVENESS_TTL_NANOS = Duration.ofSeconds(1).toNanos();
    private final Map<HostInfo, Liveness> liveness = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whether the peer's process answers its {@code /healthz} within a second (a killed one does
     * not); an answer is reused for a second, so probes and scrapes in a burst ask once.
     */
    boolean answers(HostInfo peer) {
        Liveness last = liveness.get(peer);
        long now = System.nanoTime();
        if (last != null && now - last.checkedAtNanos() < LIVENESS_TTL_NANOS) {
            return last.answers();
        }
        boolean answers = probe(peer);
        liveness.put(peer, new Liveness(answers, System.nanoTime()));
        return answers;
    }

    private boolean probe(HostInfo peer) {
        URI uri = URI.create(scheme + peer.host() + ":" + peer.port() + "/healthz");
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(1)).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    SnapshotView snapshot(HostInfo peer, ListCaps caps) {
        return everyPool(peer, "/v1/snapshot", capped(null, caps, true), SnapshotView.class);
    }

    Optional<PoolView> pool(HostInfo peer, String pool, ListCaps caps) {
        return onePool(peer, "/v1/snapshot", capped(pool, caps, true), SnapshotView.class, SnapshotView::pools);
    }

    LimitsView limits(HostInfo peer, ListCaps caps) {
        return everyPool(peer, "/v1/limits", capped(null, caps, false), LimitsView.class);
    }

    Optional<PoolLimitsView> limits(HostInfo peer, String pool, ListCaps caps) {
        return onePool(peer, "/v1/limits", capped(pool, caps, false), LimitsView.class, LimitsView::pools);
    }

    /** A view of every pool the peer owns; the peer must have it (a 404 means the peer is broken). */
    private <V> V everyPool(HostInfo peer, String path, Map<String, String> query, Class<V> type) {
        return get(peer, path, query, type).orElseThrow(() -> broken(peer, path, 404));
    }

    /** The one pool a view of every pool asked for holds, or empty when the peer does not know the pool. */
    private <V, P> Optional<P> onePool(HostInfo peer, String path, Map<String, String> query, Class<V> type,
                                       Function<V, List<P>> pools) {
        return get(peer, path, query, type).flatMap(v -> pools.apply(v).stream().findFirst());
    }

    /**
     * The query that asks for {@code pool} (every pool when {@code null}) with the caller's caps: of keys, and of
     * classes too when {@code classes}.
     */
    private static Map<String, String> capped(String pool, ListCaps caps, boolean classes) {
        Map<String, String> query = new LinkedHashMap<>();
        if (pool != null) {
            query.put("pool", pool);
        }
        query.put("keys", Integer.toString(caps.keys()));
        if (classes) {
            query.put("classes", Integer.toString(caps.classes()));
        }
        return query;
    }

    TenantsView tenants(HostInfo peer) {
        return everyPool(peer, "/v1/tenants", Map.of(), TenantsView.class);
    }

    Optional<SharingView> sharing(HostInfo peer, String pool) {
        return onePool(peer, "/v1/tenants", Map.of("pool", pool), TenantsView.class, TenantsView::pools);
    }

    Optional<ForecastView> forecast(HostInfo peer, String pool, int limit) {
        return get(peer, "/v1/pools/" + segment(pool) + "/forecast", Map.of("limit", Integer.toString(limit)),
                ForecastView.class);
    }

    Optional<TaskView> task(HostInfo peer, String id, String pool) {
        Map<String, String> query = pool == null ? Map.of() : Map.of("pool", pool);
        return get(peer, "/v1/tasks/" + segment(id), query, TaskView.class);
    }

    TaskPage tasks(HostInfo peer, TaskFilter filter) {
        Map<String, String> query = new LinkedHashMap<>();
        if (filter.pool() != null) {
            query.put("pool", filter.pool());
        }
        if (filter.state() != null) {
            query.put("state", filter.state().name());
        }
        query.put("limit", Integer.toString(filter.limit()));
        if (filter.before() != null) {
            query.put("before", filter.before().token());
        }
        if (filter.workflow() != null) {
            query.put("workflow", filter.workflow());
        }
        return get(peer, "/v1/tasks", query, TaskPage.class).orElseThrow(() -> broken(peer, "/v1/tasks", 404));
    }

    WorkerList workers(HostInfo peer, String pool) {
        Map<String, String> query = pool == null ? Map.of() : Map.of("pool", pool);
        return get(peer, "/v1/workers", query, WorkerList.class).orElseThrow(() -> broken(peer, "/v1/workers", 404));
    }

    /** The answer, or empty on 404; throws UNAVAILABLE on anything else that is not a 200. */
    private <T> Optional<T> get(HostInfo peer, String path, Map<String, String> query, Class<T> type) {
        StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
        query.forEach((k, v) -> q.add(k + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8)));
        URI uri = URI.create(scheme + peer.host() + ":" + peer.port() + path + q);
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(timeout).header(SCOPE_HEADER, LOCAL)
                .header("Accept", "application/json");
        String authorization = CALLER.get();
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        HttpRequest request = builder.GET().build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw ApiException.unavailable("the scheduler instance at " + peer.host() + ":" + peer.port()
                    + " that owns part of the state did not answer (" + e + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while asking " + peer.host() + ":" + peer.port(), e);
        }
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        if (response.statusCode() == 400) {
            // The question itself cannot be answered as asked (e.g. a task id two pools use): say so, as the peer did.
            throw refused(peer, path, response.body());
        }
        if (response.statusCode() != 200) {
            throw broken(peer, path, response.statusCode());
        }
        try {
            return Optional.of(Json.MAPPER.readValue(response.body(), type));
        } catch (JsonProcessingException e) {
            throw ApiException.unavailable("the scheduler instance at " + peer.host() + ":" + peer.port()
                    + " answered " + path + " with JSON this gateway cannot read: " + e.getOriginalMessage(), e);
        }
    }

    private static ApiException refused(HostInfo peer, String path, String body) {
        try {
            ErrorBody.Detail detail = Json.MAPPER.readValue(body, ErrorBody.class).error();
            return ApiException.invalid(detail.field(), detail.message());
        } catch (JsonProcessingException | RuntimeException e) {
            return broken(peer, path, 400);
        }
    }

    private static ApiException broken(HostInfo peer, String path, int status) {
        return ApiException.unavailable("the scheduler instance at " + peer.host() + ":" + peer.port()
                + " answered " + path + " with HTTP " + status, null);
    }

    private static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
