package io.cronoq.gateway;

import io.cronoq.scheduler.auth.Credential;

/**
 * Which tenant a submission runs for. A credential bound to a tenant ({@code tenant = "research"}
 * in its {@code [[auth.tokens]]} entry) submits for that tenant only: a task naming none takes it,
 * a task naming it is fine, a task naming another is refused (403 PERMISSION_DENIED). Any other
 * caller, and an open gateway, submits for the tenant the task names (none: {@code default}).
 */
final class TenantBinding {

    private TenantBinding() {}

    /**
     * The tenant to write into the task: {@code named} (the body's, {@code null} for none) as
     * {@code caller} (null on an open gateway) may submit it; throws 403 when the caller may not.
     */
    static String tenant(Credential caller, String named) {
        if (caller == null || caller.tenant() == null) {
            return named;
        }
        String bound = caller.tenant();
        if (named == null || named.equals(bound)) {
            return bound;
        }
        throw new ApiException(ErrorCode.PERMISSION_DENIED, "token '" + caller.name() + "' submits for tenant "
                + bound + " only; leave tenant out or name " + bound, "tenant", null);
    }
}
