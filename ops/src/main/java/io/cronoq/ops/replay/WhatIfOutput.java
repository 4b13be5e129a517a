package io.cronoq.ops.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.events.TenantQuota;
import io.cronoq.schemas.rules.Durations;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * Prints a {@link WhatIf.Report}: a summary and tables of wait percentiles per group (and per tenant,
 * when the sharing was changed or the journal has several tenants) for people, or one JSON document.
 */
final class WhatIfOutput {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private WhatIfOutput() {}

    static void table(WhatIf.Report report, PrintWriter out) {
        out.printf(Locale.ROOT, "Simulated %d pool(s) from %,d journal entries; change: %s%n", report.pools().size(),
                report.entries(), describe(report.change(), report.sharing()));
        for (WhatIf.PoolResult p : report.pools()) {
            Placements placed = p.placements();
            out.printf(Locale.ROOT, "  %s: %d of %d simulated attempts placed as recorded (recorded %d)%s; "
                            + "waiting at the end: recorded %d, simulated %d%n",
                    p.pool(), placed.asRecorded(), placed.simulated(), placed.recorded(), verdict(placed),
                    p.waitingRecorded(), p.waitingSimulated());
        }
        out.println();
        out.println("Wait time per group (ready to assigned), recorded vs simulated:");
        StateTable.Table table = new StateTable.Table("POOL", "GROUP", "RUN", "ATTEMPTS", "P50", "P90", "P99", "MAX");
        for (WhatIf.GroupResult g : report.groups()) {
            String labels = g.labels().isEmpty() ? Labels.NONE : g.labels();
            row(table, g.pool(), labels, "recorded", g.recorded());
            row(table, "", "", "simulated", g.simulated());
        }
        table.print(out);
        if (showsTenants(report)) {
            out.println();
            out.println("Wait time per tenant (ready to assigned) and tasks left waiting, recorded vs simulated:");
            StateTable.Table tenants = new StateTable.Table("POOL", "TENANT", "RUN", "ATTEMPTS", "P50", "P90", "P99",
                    "MAX", "WAITING AT END");
            for (WhatIf.TenantResult t : report.tenants()) {
                row(tenants, t.pool(), t.tenant(), "recorded", t.recorded(), t.waitingRecorded());
                row(tenants, "", "", "simulated", t.simulated(), t.waitingSimulated());
            }
            tenants.print(out);
        }
        out.flush();
    }

    /**
     * What the placement counts alone do not say: everything reproduced, or as many attempts placed
     * as recorded but in another order.
     */
    private static String verdict(Placements placed) {
        if (placed.identical()) {
            return ", every placement reproduced";
        }
        return placed.inRecordedOrder() || placed.simulated() != placed.recorded() ? "" : ", in another order";
    }

    /** Whether the tenant table says something: the sharing was changed, or the journal has several tenants. */
    private static boolean showsTenants(WhatIf.Report report) {
        return !report.sharing().isNone()
                || report.tenants().stream().map(WhatIf.TenantResult::tenant).distinct().count() > 1;
    }

    private static void row(StateTable.Table table, String pool, String tenant, String run, WaitStats.Percentiles p,
                            int waiting) {
        if (p.attempts() == 0) {
            table.row(pool, tenant, run, 0, "-", "-", "-", "-", waiting);
        } else {
            table.row(pool, tenant, run, p.attempts(), Durations.words(p.p50()), Durations.words(p.p90()),
                    Durations.words(p.p99()), Durations.words(p.max()), waiting);
        }
    }

    private static void row(StateTable.Table table, String pool, String group, String run, WaitStats.Percentiles p) {
        if (p.attempts() == 0) {
            table.row(pool, group, run, 0, "-", "-", "-", "-");
        } else {
            table.row(pool, group, run, p.attempts(), Durations.words(p.p50()), Durations.words(p.p90()),
                    Durations.words(p.p99()), Durations.words(p.max()));
        }
    }

    static void json(WhatIf.Report report, PrintWriter out) {
        ObjectNode root = JSON.createObjectNode();
        root.put("entries", report.entries());
        root.put("reproduced", report.reproduced());
        ObjectNode change = root.putObject("change");
        ArrayNode added = change.putArray("addWorkers");
        for (FleetChange.AddWorkers a : report.change().added()) {
            ObjectNode node = added.addObject();
            node.put("pool", a.pool());
            node.set("labels", TimelineJsonLines.labels(a.labels()));
            node.put("count", a.count());
            node.put("slots", a.slots());
        }
        ArrayNode removed = change.putArray("removeGroups");
        for (FleetChange.RemoveGroup r : report.change().removed()) {
            ObjectNode node = removed.addObject();
            node.put("pool", r.pool());
            node.set("labels", TimelineJsonLines.labels(r.labels()));
        }
        SharingChange sharing = report.sharing();
        ObjectNode weights = change.putObject("weights");
        sharing.weights().forEach(weights::put);
        ObjectNode quotas = change.putObject("quotas");
        sharing.quotas().forEach((tenant, list) -> {
            ArrayNode of = quotas.putArray(tenant);
            for (TenantQuota q : list) {
                ObjectNode node = of.addObject();
                node.set("labels", TimelineJsonLines.labels(q.getLabels()));
                node.put("guaranteed", q.getGuaranteed());
                if (q.getMax() == null) {
                    node.putNull("max");
                } else {
                    node.put("max", q.getMax());
                }
            }
        });
        if (sharing.preemption() == null) {
            change.putNull("preemption");
        } else {
            change.put("preemption", sharing.preemption());
        }
        ArrayNode pools = root.putArray("pools");
        for (WhatIf.PoolResult p : report.pools()) {
            ObjectNode node = pools.addObject();
            node.put("pool", p.pool());
            node.put("recordedAttempts", p.placements().recorded());
            node.put("simulatedAttempts", p.placements().simulated());
            node.put("placedAsRecorded", p.placements().asRecorded());
            node.put("inRecordedOrder", p.placements().inRecordedOrder());
            node.put("reproduced", p.placements().identical());
            node.put("waitingAtEndRecorded", p.waitingRecorded());
            node.put("waitingAtEndSimulated", p.waitingSimulated());
            node.put("addedWorkers", p.addedWorkers());
            node.put("droppedRegistrations", p.droppedRegistrations());
        }
        ArrayNode groups = root.putArray("groups");
        for (WhatIf.GroupResult g : report.groups()) {
            ObjectNode node = groups.addObject();
            node.put("pool", g.pool());
            node.set("labels", TimelineJsonLines.labels(Labels.parse(g.labels())));
            node.set("recorded", percentiles(g.recorded()));
            node.set("simulated", percentiles(g.simulated()));
        }
        ArrayNode tenants = root.putArray("tenants");
        for (WhatIf.TenantResult t : report.tenants()) {
            ObjectNode node = tenants.addObject();
            node.put("pool", t.pool());
            node.put("tenant", t.tenant());
            node.set("recorded", percentiles(t.recorded()));
            node.set("simulated", percentiles(t.simulated()));
            node.put("waitingAtEndRecorded", t.waitingRecorded());
            node.put("waitingAtEndSimulated", t.waitingSimulated());
        }
        out.println(JsonText.of(JSON, root));
        out.flush();
    }

    private static ObjectNode percentiles(WaitStats.Percentiles p) {
        ObjectNode node = JSON.createObjectNode();
        node.put("attempts", p.attempts());
        if (p.attempts() > 0) {
            node.put("p50Ms", p.p50());
            node.put("p90Ms", p.p90());
            node.put("p99Ms", p.p99());
            node.put("maxMs", p.max());
        }
        return node;
    }

    static String describe(FleetChange change, SharingChange sharing) {
        if (change.isNone() && sharing.isNone()) {
            return "none (the simulation should reproduce the recording)";
        }
        StringBuilder s = new StringBuilder();
        for (FleetChange.AddWorkers a : change.added()) {
            s.append(s.length() == 0 ? "" : "; ").append(String.format(Locale.ROOT, "+%d worker(s) in %s with %s, %d slot(s) each",
                    a.count(), a.pool(), Labels.display(a.labels()), a.slots()));
        }
        for (FleetChange.RemoveGroup r : change.removed()) {
            s.append(s.length() == 0 ? "" : "; ").append("without the group ").append(Labels.display(r.labels()))
                    .append(" of ").append(r.pool());
        }
        if (!sharing.isNone()) {
            s.append(s.length() == 0 ? "" : "; ").append(sharing.describe()).append(" (in every pool)");
        }
        return s.toString();
    }
}
