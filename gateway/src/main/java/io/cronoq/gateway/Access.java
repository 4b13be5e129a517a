package io.cronoq.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import io.javalin.http.Context;
import io.javalin.security.RouteRole;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may call which route: a {@code Authorization: Bearer <secret>} header names a configured
 * credential (none or unknown: 401 UNAUTHENTICATED), whose role must hold the route's
 * {@link Permission} and whose pools must include the pool the request acts in (else 403
 * PERMISSION_DENIED). With no credentials configured every call is let through (local development).
 */
final class Access {

    private static final Logger log = LoggerFactory.getLogger(Access.class);
    private static final String BEARER = "Bearer ";
    /** The request attribute holding the authenticated {@link Credential}; absent on an open gateway. */
    static final String CALLER = "cronoq.caller";

    /** The roles that hold each permission; admins hold all. */
    private static final Map<Permission, Set<Role>> GRANTS = Map.of(
            Permission.READ, Set.of(Role.ADMIN, Role.VIEWER, Role.SUBMITTER),
            Permission.SUBMIT, Set.of(Role.ADMIN, Role.SUBMITTER),
            Permission.CANCEL, Set.of(Role.ADMIN, Role.SUBMITTER),
            Permission.DRAIN, Set.of(Role.ADMIN),
            Permission.SHARE, Set.of(Role.ADMIN),
            Permission.LIMIT, Set.of(Role.ADMIN),
            Permission.METRICS, Set.of(Role.ADMIN, Role.VIEWER),
            Permission.SCHEMAS, Set.of(Role.ADMIN, Role.VIEWER, Role.SUBMITTER, Role.WORKER));

    private final Credentials credentials;

    Access(Credentials credentials) {
        this.credentials = credentials;
    }

    /** Logs, loudly, when the gateway is open. */
    void announce() {
        if (credentials.isEmpty()) {
            log.warn("******** The gateway is OPEN: no [[auth.tokens]] are configured, so anyone who can reach "
                    + "this port can submit, cancel and drain. Use this for local development only. ********");
        } else {
            log.info("Gateway requires a bearer token from one of {} credential(s)", credentials.all().size());
        }
    }

    /** The before-handler: lets the request through or throws 401/403. */
    void check(Context ctx) {
        // Forwarded peer calls carry the caller's own Authorization header, so the owner re-checks it.
        PeerClient.CALLER.set(ctx.header("Authorization"));
        Permission needed = permission(ctx.routeRoles());
        if (credentials.isEmpty() || needed == Permission.OPEN) {
            return;
        }
        Credential caller = authenticate(ctx);
        ctx.attribute(CALLER, caller);
        if (caller.role() != Role.ADMIN && !GRANTS.get(needed).contains(caller.role())) {
            throw denied("credential '" + caller.name() + "' has role " + caller.role().configName()
                    + ", which may not " + verb(needed));
        }
        if (!caller.poolRestricted()) {
            return;
        }
        if (needed == Permission.METRICS || needed == Permission.DRAIN) {
            throw denied("credential '" + caller.name() + "' is restricted to some pools; " + verb(needed)
                    + " needs a credential for every pool");
        }
        if (needed == Permission.SCHEMAS) {
            return;
        }
        String pool = switch (needed) {
            case SUBMIT -> bodyPool(ctx);
            case SHARE, LIMIT -> ctx.pathParam("pool");
            default -> ctx.queryParam("pool");
        };
        if (pool == null || pool.isEmpty()) {
            if (needed == Permission.SUBMIT) {
                return; // no pool in the body: the route answers 400 naming the field
            }
            throw denied("credential '" + caller.name() + "' is restricted to some pools; name one with ?pool=");
        }
        if (!caller.allowsPool(pool)) {
            throw denied("credential '" + caller.name() + "' may not act in pool '" + pool + "'");
        }
    }

    private Credential authenticate(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            ctx.header("WWW-Authenticate", "Bearer");
            throw new ApiException(ErrorCode.UNAUTHENTICATED,
                    "send a token: Authorization: Bearer <secret of an [[auth.tokens]] entry>", null, null);
        }
        Optional<Credential> found = credentials.authenticate(header.substring(BEARER.length()).trim());
        if (found.isEmpty()) {
            ctx.header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
            throw new ApiException(ErrorCode.UNAUTHENTICATED, "the bearer token matches no configured credential",
                    null, null);
        }
        return found.get();
    }

    private static String bodyPool(Context ctx) {
        try {
            JsonNode pool = Json.MAPPER.readTree(ctx.body()).get("pool");
            return pool != null && pool.isTextual() ? pool.asText() : null;
        } catch (Exception e) {
            return null; // malformed JSON: the route answers 400
        }
    }

    private static Permission permission(Set<RouteRole> roles) {
        return roles.stream().filter(Permission.class::isInstance).map(Permission.class::cast).findFirst()
                .orElse(Permission.OPEN);
    }

    private static ApiException denied(String message) {
        return new ApiException(ErrorCode.PERMISSION_DENIED, message, null, null);
    }

    private static String verb(Permission permission) {
        return switch (permission) {
            case READ -> "read tasks, workers, snapshots, tenants or limits";
            case SUBMIT -> "submit tasks";
            case CANCEL -> "cancel tasks";
            case DRAIN -> "drain workers";
            case SHARE -> "set how pools are shared between tenants";
            case LIMIT -> "set a pool's concurrency key limits or rate limits";
            case METRICS -> "read the metrics";
            case SCHEMAS -> "read schemas";
            case OPEN -> "call this";
        };
    }
}
