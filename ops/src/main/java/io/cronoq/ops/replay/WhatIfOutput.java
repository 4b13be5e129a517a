package io.cronoq.ops.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.schemas.rules.Durations;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Locale;

/** Prints a {@link WhatIf.Report}: a summary and a table of wait percentiles for people, or one JSON document. */
final class WhatIfOutput {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private WhatIfOutput() {}

    static void table(WhatIf.Report report, PrintWriter out) {
        out.printf(Locale.ROOT, "Simulated %d pool(s) from %,d journal entries; change: %s%n", report.pools().size(),
                report.entries(), describe(report.change()));
        for (WhatIf.PoolResult p : report.pools()) {
            Placements placed = p.placements();
            out.printf(Locale.ROOT, "  %s: %d of %d simulated attempts placed as recorded (recorded %d)%s; "
                            + "waiting at the end: recorded %d, simulated %d%n",
                    p.pool(), placed.asRecorded(), placed.simulated(), placed.recorded(),
                    placed.identical() ? ", every placement reproduced" : "", p.waitingRecorded(),
                    p.waitingSimulated());
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
        out.flush();
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
        ArrayNode pools = root.putArray("pools");
        for (WhatIf.PoolResult p : report.pools()) {
            ObjectNode node = pools.addObject();
            node.put("pool", p.pool());
            node.put("recordedAttempts", p.placements().recorded());
            node.put("simulatedAttempts", p.placements().simulated());
            node.put("placedAsRecorded", p.placements().asRecorded());
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
        try {
            out.println(JSON.writeValueAsString(root));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
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

    static String describe(FleetChange change) {
        if (change.isNone()) {
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
        return s.toString();
    }
}
