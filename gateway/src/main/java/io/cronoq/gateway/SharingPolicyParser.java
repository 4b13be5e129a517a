package io.cronoq.gateway;

import static io.cronoq.gateway.BodyFields.closed;
import static io.cronoq.gateway.BodyFields.closedObject;
import static io.cronoq.gateway.BodyFields.integer;
import static io.cronoq.gateway.BodyFields.labels;
import static io.cronoq.gateway.BodyFields.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.schemas.rules.SharingRules;
import io.cronoq.schemas.rules.Violation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the bodies of the sharing routes into the {@link SharingPolicySet} the scheduler reads: a
 * tenant's {@code weight} and {@code quotas} ({@code PUT /v1/pools/{pool}/tenants/{tenant}}) and a
 * pool's {@code preemption} and {@code preemptionGraceMs} ({@code PUT /v1/pools/{pool}/sharing}).
 * Shapes are checked here, every rule by {@link SharingRules} — the scheduler's own — and any
 * failure is a 400 naming the field as the body spells it ({@code quotas[0].guaranteed}); the path's
 * {@code pool} and {@code tenant} are checked by the same rules. A field left out is left as it was; a
 * field the views show but the server sets ({@code setBy}, {@code slotsInUse}, the path's {@code pool})
 * is a 400 saying who sets it.
 */
final class SharingPolicyParser {

    static final List<String> TENANT_FIELDS = List.of("weight", "quotas");
    static final List<String> QUOTA_FIELDS = List.of("labels", "guaranteed", "max");
    static final List<String> POOL_FIELDS = List.of("preemption", "preemptionGraceMs");

    /** Who sets the figures of a tenant's view. */
    private static final String TENANT_FIGURE =
            "the scheduler computes it from what the pool's tenants hold and wait for";

    /** What a tenant's view shows that the server sets, each with who sets it from what: refused in a body. */
    static final Map<String, String> TENANT_SERVER_FIELDS = BodyFields.serverFields(
            "pool", "the path names the pool",
            "tenant", "the path names the tenant",
            "setBy", BodyFields.SET_BY,
            "setAt", BodyFields.SET_AT,
            "slotsInUse", TENANT_FIGURE,
            "gpusInUse", TENANT_FIGURE,
            "fairShare", TENANT_FIGURE,
            "dominantShare", TENANT_FIGURE,
            "waiting", TENANT_FIGURE,
            "oldestWaitingSince", TENANT_FIGURE,
            "oldestWaitingMs", TENANT_FIGURE);
    /** What a quota's view shows that the server sets: refused in a body's quota. */
    static final Map<String, String> QUOTA_SERVER_FIELDS = BodyFields.serverFields(
            "scope", "the scheduler derives it from labels",
            "inUse", "the scheduler counts the slots the tenant holds in the scope");
    /** What a pool's sharing view shows that the server sets: refused in a body. */
    static final Map<String, String> POOL_SERVER_FIELDS = BodyFields.serverFields(
            "pool", "the path names the pool",
            "setBy", BodyFields.SET_BY,
            "setAt", BodyFields.SET_AT,
            "slots", "the scheduler counts the slots of the pool's ACTIVE workers",
            "gpus", "the scheduler counts the GPUs of the pool's ACTIVE workers");

    private static final String TENANT_EXAMPLE =
            "{\"weight\":3,\"quotas\":[{\"labels\":{\"gpu\":\"a100\"},\"guaranteed\":4,\"max\":16}]}";
    private static final String POOL_EXAMPLE = "{\"preemption\":true,\"preemptionGraceMs\":60000}";

    private SharingPolicyParser() {}

    /** Tenant {@code tenant}'s weight and quotas in {@code pool}, as this body sets them, by {@code setBy} at {@code at}. */
    static SharingPolicySet tenant(String pool, String tenant, byte[] body, String setBy, Instant at) {
        return checked(closedObject(body, TENANT_EXAMPLE, "weight, quotas or both", TENANT_FIELDS,
                TENANT_SERVER_FIELDS, "a tenant's policy",
                root -> SharingPolicySet.newBuilder()
                        .setPool(pool)
                        .setTenant(tenant)
                        .setWeight(read("weight", () -> weight(root.get("weight"))))
                        .setQuotas(read("quotas", () -> quotas(root.get("quotas"))))
                        .setSetBy(setBy)
                        .setSetAt(at)
                        .build()));
    }

    /** The preemption settings of {@code pool}, as this body sets them, by {@code setBy} at {@code at}. */
    static SharingPolicySet pool(String pool, byte[] body, String setBy, Instant at) {
        SharingPolicySet policy = closedObject(body, POOL_EXAMPLE, "preemption, preemptionGraceMs or both",
                POOL_FIELDS, POOL_SERVER_FIELDS, "a pool's sharing", root -> SharingPolicySet.newBuilder()
                        .setPool(pool)
                        .setPreemption(read("preemption", () -> bool(root.get("preemption"), "preemption")))
                        .setPreemptionGraceMs(read("preemptionGraceMs",
                                () -> millis(root.get("preemptionGraceMs"), "preemptionGraceMs")))
                        .setSetBy(setBy)
                        .setSetAt(at)
                        .build());
        if (policy.getPreemption() == null && policy.getPreemptionGraceMs() == null) {
            throw ApiException.invalid("body", "nothing to set for pool " + pool + ": give preemption, "
                    + "preemptionGraceMs or both, e.g. " + POOL_EXAMPLE);
        }
        return checked(policy);
    }

    private static SharingPolicySet checked(SharingPolicySet policy) {
        Optional<Violation> broken = read("body", () -> SharingRules.check(policy));
        if (broken.isPresent()) {
            throw ApiException.invalid(broken.get().field(), broken.get().message());
        }
        return policy;
    }

    private static Double weight(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isNumber()) {
            throw ApiException.invalid("weight", "weight must be a number, not " + BodyFields.type(node)
                    + "; a tenant's weight is above 0 and at most " + (int) SharingRules.MAX_WEIGHT + ", e.g. 3 or 0.5");
        }
        return node.decimalValue().doubleValue(); // beyond a double's range: infinite, which the rules refuse
    }

    private static List<TenantQuota> quotas(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isArray()) {
            throw ApiException.invalid("quotas", "quotas must be a list of {\"labels\":{...},\"guaranteed\":n,"
                    + "\"max\":n} ([] removes the tenant's quotas), not " + BodyFields.type(node));
        }
        List<TenantQuota> quotas = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            String field = "quotas[" + i + "]";
            JsonNode q = node.get(i);
            if (!q.isObject()) {
                throw ApiException.invalid(field, field + " must be an object {\"labels\":{...},\"guaranteed\":n,"
                        + "\"max\":n}, not " + BodyFields.type(q));
            }
            closed(q, field + ".", QUOTA_FIELDS, QUOTA_SERVER_FIELDS, field);
            Integer guaranteed = integer(q.get("guaranteed"), field + ".guaranteed");
            quotas.add(TenantQuota.newBuilder()
                    .setLabels(labels(q.get("labels"), field + ".labels"))
                    .setGuaranteed(guaranteed == null ? 0 : guaranteed)
                    .setMax(integer(q.get("max"), field + ".max"))
                    .build());
        }
        return quotas;
    }

    private static Boolean bool(JsonNode node, String field) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isBoolean()) {
            throw ApiException.invalid(field, field + " must be true or false, not " + BodyFields.type(node));
        }
        return node.booleanValue();
    }

    private static Long millis(JsonNode node, String field) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw ApiException.invalid(field, field + " must be a whole number of milliseconds, e.g. 60000");
        }
        return node.longValue();
    }
}
