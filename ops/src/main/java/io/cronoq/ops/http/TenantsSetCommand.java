package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.ops.sharing.SharingFlags;
import io.cronoq.schemas.rules.SharingRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cronoq tenants set}: sets one tenant's weight and quotas in a pool through the gateway
 * ({@code PUT /v1/pools/{pool}/tenants/{tenant}}, admin). Every value is checked here first by the
 * scheduler's own sharing rules, so a mistake names the flag.
 */
@Command(name = "set", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Set a tenant's weight and quotas in a pool (needs an admin token).",
            "What is not given stays as it was; --quota replaces all the tenant's quotas in the pool, --no-quotas "
                    + "removes them. A freed slot goes to the waiting tenant furthest below its weighted fair share; "
                    + "a quota guarantees slots of a scope (taken back from borrowers when preemption is on) "
                    + "and bounds what the tenant may hold there."},
        footer = {"", "QUOTA is " + SharingFlags.QUOTA_FORM + ".", "",
            "Examples:",
            "  cronoq tenants set --pool gpu --tenant research --weight 3",
            "  cronoq tenants set --pool gpu --tenant research \\",
            "      --quota gpu=a100:guaranteed=4:max=16 --quota pool:guaranteed=2",
            "  cronoq tenants set --pool gpu --tenant interns --quota pool:max=4",
            "  cronoq tenants set --pool gpu --tenant research --no-quotas"})
final class TenantsSetCommand extends PoolChangeCommand {

    @Option(names = "--tenant", required = true, paramLabel = "TENANT", description = "The tenant (team).")
    String tenant;

    @Option(names = "--weight", paramLabel = "W",
            description = "Its weight in the fair share: above 0, at most 1000 (every tenant starts at 1).")
    Double weight;

    @Option(names = "--quota", paramLabel = "QUOTA",
            description = "A quota, SCOPE:guaranteed=N[:max=M] (repeatable; replaces the tenant's quotas in the pool).")
    List<String> quotas;

    @Option(names = "--no-quotas", description = "Remove every quota of the tenant in the pool.")
    boolean noQuotas;

    @Override
    String part() {
        return "/tenants/" + Query.encode(tenant);
    }

    @Override
    String done() {
        return "tenant " + tenant + " of pool " + pool + ": " + describe() + " (set; `cronoq tenants --pool " + pool
                + "` shows it once the scheduler has taken it in)";
    }

    /**
     * The JSON body of the PUT the flags describe: {@code weight} and {@code quotas} when given.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    @Override
    ObjectNode body() {
        if (weight == null && quotas == null && !noQuotas) {
            throw new IllegalArgumentException("nothing to set for tenant " + tenant + ": give --weight W, --quota "
                    + "SCOPE:guaranteed=N[:max=M] (repeatable) or --no-quotas");
        }
        if (quotas != null && noQuotas) {
            throw new IllegalArgumentException("--quota and --no-quotas: give one or the other (--quota already "
                    + "replaces the tenant's quotas)");
        }
        List<TenantQuota> parsed = new ArrayList<>();
        for (String text : quotas == null ? List.<String>of() : quotas) {
            try {
                parsed.add(SharingFlags.quota(text));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--quota " + e.getMessage(), e);
            }
        }
        SharingPolicySet event = new SharingPolicySet(pool, tenant, weight, quotas == null && !noQuotas ? null : parsed,
                null, null, "cronoq tenants set", clock.instant());
        SharingRules.check(event).ifPresent(v -> {
            throw SharingFlags.refusal(v, Map.of("pool", "--pool", "tenant", "--tenant", "weight", "--weight"), "--quota",
                    quotas == null ? List.of() : quotas);
        });
        ObjectNode body = GatewayClient.json().createObjectNode();
        if (weight != null) {
            body.put("weight", weight);
        }
        if (event.getQuotas() != null) {
            ArrayNode list = body.putArray("quotas");
            for (TenantQuota q : event.getQuotas()) {
                ObjectNode quota = list.addObject();
                q.getLabels().forEach(quota.putObject("labels")::put);
                quota.put("guaranteed", q.getGuaranteed());
                if (q.getMax() != null) {
                    quota.put("max", q.getMax());
                }
            }
        }
        return body;
    }

    /** {@code weight 3; quotas gpu=a100 4/16, pool 2/-}. */
    private String describe() {
        StringJoiner out = new StringJoiner("; ");
        if (weight != null) {
            out.add("weight " + TenantsCommand.number(weight));
        }
        if (noQuotas) {
            out.add("quotas removed");
        } else if (quotas != null) {
            StringJoiner list = new StringJoiner(", ");
            quotas.forEach(text -> list.add(SharingFlags.describe(SharingFlags.quota(text))));
            out.add("quotas " + list);
        }
        return out.toString();
    }
}
