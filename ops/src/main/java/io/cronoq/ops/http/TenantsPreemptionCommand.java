package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.ops.sharing.SharingFlags;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.SharingRules;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cronoq tenants preemption}: turns a pool's preemption on or off and sets its grace, through
 * the gateway ({@code PUT /v1/pools/{pool}/sharing}, admin).
 */
@Command(name = "preemption", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Turn a pool's preemption on or off, or set its grace (needs an admin token).",
            "With preemption on (the default), a tenant below a guarantee whose first waiting task has waited the "
                    + "grace (default 30s) takes a slot back: the newest attempt another tenant holds there beyond "
                    + "its own guarantee is revoked and its task waits again, with none of its attempts spent."},
        footer = {"", "DURATION is " + Durations.FORMS + ".", "", "Examples:",
            "  cronoq tenants preemption --pool gpu --off",
            "  cronoq tenants preemption --pool gpu --on --grace 2m"})
final class TenantsPreemptionCommand extends PoolChangeCommand {

    @Option(names = "--on", description = "Preempt borrowed attempts for a tenant below its guarantee.")
    boolean on;

    @Option(names = "--off", description = "Never preempt: a tenant below its guarantee waits for a slot to come free.")
    boolean off;

    @Option(names = "--grace", paramLabel = "DURATION",
            description = "How long a tenant below its guarantee waits before an attempt is preempted for it.")
    String grace;

    @Override
    String part() {
        return "/sharing";
    }

    @Override
    String done() {
        return "pool " + pool + ": " + describe() + " (set)";
    }

    /**
     * The JSON body of the PUT the flags describe: {@code preemption} and {@code preemptionGraceMs} when given.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    @Override
    ObjectNode body() {
        if (on && off) {
            throw new IllegalArgumentException("--on and --off: give one or the other");
        }
        if (!on && !off && grace == null) {
            throw new IllegalArgumentException("nothing to set for pool " + pool + ": give --on or --off, "
                    + "and/or --grace DURATION");
        }
        Boolean preemption = on ? Boolean.TRUE : off ? Boolean.FALSE : null;
        Duration wait = grace == null ? null : TimeFlags.duration("--grace", grace);
        SharingPolicySet event = new SharingPolicySet(pool, null, null, null, preemption,
                wait == null ? null : wait.toMillis(), "cronoq tenants preemption", clock.instant());
        SharingRules.check(event).ifPresent(v -> {
            throw SharingFlags.refusal(v, Map.of("pool", "--pool", "preemptionGraceMs", "--grace"), "--quota", List.of());
        });
        ObjectNode body = GatewayClient.json().createObjectNode();
        if (preemption != null) {
            body.put("preemption", preemption);
        }
        if (wait != null) {
            body.put("preemptionGraceMs", wait.toMillis());
        }
        return body;
    }

    private String describe() {
        StringJoiner out = new StringJoiner("; ");
        if (on || off) {
            out.add("preemption " + (on ? "on" : "off"));
        }
        if (grace != null) {
            out.add("grace " + Durations.words(TimeFlags.duration("--grace", grace)));
        }
        return out.toString();
    }
}
