package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.events.JournalKind;
import io.cronoq.schemas.rules.SharingRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A what-if question answered from a journal: simulates every pool under a {@link FleetChange} and
 * a {@link SharingChange} and compares it with the recording: placements, and wait-time
 * percentiles per group and per tenant.
 */
final class WhatIf {

    /**
     * The answer: per pool, placements and tasks left waiting; per group and per tenant, recorded and
     * simulated waits.
     */
    record Report(FleetChange change, SharingChange sharing, long entries, List<PoolResult> pools,
                  List<GroupResult> groups, List<TenantResult> tenants) {

        /** Whether every pool's simulation placed every attempt exactly as recorded. */
        boolean reproduced() {
            return pools.stream().allMatch(p -> p.placements().identical());
        }
    }

    /** One pool's comparison. */
    record PoolResult(String pool, Placements placements, int waitingRecorded, int waitingSimulated, int addedWorkers,
                      int droppedRegistrations) {}

    /** One group's wait percentiles, recorded and simulated (zero attempts where the group placed none). */
    record GroupResult(String pool, String labels, WaitStats.Percentiles recorded, WaitStats.Percentiles simulated) {}

    /** One tenant's wait percentiles in one pool, and its tasks left waiting, recorded and simulated. */
    record TenantResult(String pool, String tenant, WaitStats.Percentiles recorded, WaitStats.Percentiles simulated,
                        int waitingRecorded, int waitingSimulated) {}

    private WhatIf() {}

    /** Simulates the journal's pools under the change, with the default time rules. */
    static Report run(List<JournalEntry> journal, FleetChange change) {
        return run(journal, change, TimeRules.DEFAULT);
    }

    /** Simulates the journal's pools under the fleet change, with the recorded sharing policy. */
    static Report run(List<JournalEntry> journal, FleetChange change, TimeRules rules) {
        return run(journal, change, SharingChange.none(), rules);
    }

    /**
     * Simulates the journal's pools under the changes.
     *
     * @param journal every entry, each pool's in journal order
     * @param sharing the what-if sharing policy, applied in every pool
     * @param rules   the durations the recorded scheduler ran with (its heartbeat timeout is not used)
     * @throws IllegalArgumentException naming the flag when the change names a pool, group or tenant the journal lacks
     */
    static Report run(List<JournalEntry> journal, FleetChange change, SharingChange sharing, TimeRules rules) {
        Map<String, List<JournalEntry>> byPool = new LinkedHashMap<>();
        for (JournalEntry entry : journal) {
            byPool.computeIfAbsent(entry.getPool(), p -> new ArrayList<>()).add(entry);
        }
        check(change, byPool);
        Map<String, String> tenantOf = tenants(journal);
        check(sharing, knownTenants(journal, tenantOf));
        List<JournalEntry> simulatedJournal = new ArrayList<>();
        Map<String, Simulation.Result> results = new TreeMap<>();
        for (var pool : byPool.entrySet()) {
            Simulation.Result result = Simulation.run(pool.getKey(), pool.getValue(), change, sharing, rules);
            results.put(pool.getKey(), result);
            simulatedJournal.addAll(result.journal());
        }
        Function<Timeline.Task, String> tenant = t -> tenantOf.getOrDefault(taskKey(t.pool(), t.taskId()),
                SharingRules.DEFAULT_TENANT);
        WaitStats recorded = WaitStats.of(Timeline.of(journal), tenant);
        WaitStats simulated = WaitStats.of(Timeline.of(simulatedJournal), tenant);
        List<PoolResult> pools = new ArrayList<>();
        results.forEach((pool, result) -> pools.add(new PoolResult(pool,
                Placements.compare(byPool.get(pool), result.journal()), recorded.waitingAtEnd(pool),
                simulated.waitingAtEnd(pool), result.addedWorkers(), result.droppedRegistrations())));
        TreeSet<WaitStats.GroupKey> groups = new TreeSet<>(recorded.groups());
        groups.addAll(simulated.groups());
        List<GroupResult> rows = new ArrayList<>();
        for (WaitStats.GroupKey g : groups) {
            rows.add(new GroupResult(g.pool(), g.labels(), recorded.percentiles(g), simulated.percentiles(g)));
        }
        TreeSet<WaitStats.TenantKey> tenants = new TreeSet<>(recorded.tenants());
        tenants.addAll(simulated.tenants());
        List<TenantResult> tenantRows = new ArrayList<>();
        for (WaitStats.TenantKey t : tenants) {
            tenantRows.add(new TenantResult(t.pool(), t.tenant(), recorded.percentiles(t), simulated.percentiles(t),
                    recorded.waitingAtEnd(t), simulated.waitingAtEnd(t)));
        }
        return new Report(change, sharing, journal.size(), List.copyOf(pools), List.copyOf(rows),
                List.copyOf(tenantRows));
    }

    /** Every submitted task's tenant ({@code default} for none), by {@link #taskKey}. */
    private static Map<String, String> tenants(List<JournalEntry> journal) {
        Map<String, String> tenants = new HashMap<>();
        for (JournalEntry e : journal) {
            if (e.getEvent() instanceof TaskSubmitted t) {
                tenants.put(taskKey(t.getPool(), t.getTaskId()), SharingRules.tenantOf(t.getTenant()));
            }
        }
        return tenants;
    }

    /** The tenants the journal knows: those of its tasks and those its recorded sharing changes set. */
    private static Set<String> knownTenants(List<JournalEntry> journal, Map<String, String> tenantOf) {
        Set<String> known = new TreeSet<>(tenantOf.values());
        for (JournalEntry e : journal) {
            if (e.getEvent() instanceof SharingPolicySet p && p.getTenant() != null) {
                known.add(p.getTenant());
            }
        }
        return known;
    }

    private static String taskKey(String pool, String taskId) {
        return pool + '\u0000' + taskId;
    }

    private static void check(SharingChange sharing, Set<String> known) {
        for (String tenant : sharing.tenants()) {
            if (!known.contains(tenant)) {
                String flag = sharing.weights().containsKey(tenant) ? "--weight" : "--quota";
                throw new IllegalArgumentException(flag + ": tenant '" + tenant + "' is not in the journal; its "
                        + "tenants: " + known);
            }
        }
    }

    private static void check(FleetChange change, Map<String, List<JournalEntry>> byPool) {
        for (FleetChange.AddWorkers add : change.added()) {
            if (!byPool.containsKey(add.pool())) {
                throw new IllegalArgumentException("--add-workers: pool '" + add.pool() + "' is not in the journal; "
                        + "its pools: " + new TreeSet<>(byPool.keySet()));
            }
        }
        for (FleetChange.RemoveGroup remove : change.removed()) {
            List<JournalEntry> entries = byPool.get(remove.pool());
            if (entries == null) {
                throw new IllegalArgumentException("--remove-group: pool '" + remove.pool() + "' is not in the journal; "
                        + "its pools: " + new TreeSet<>(byPool.keySet()));
            }
            TreeSet<String> groups = new TreeSet<>();
            for (JournalEntry e : entries) {
                Map<String, String> registered = switch (JournalKind.of(e)) {
                    case WORKER_REGISTERED -> ((WorkerRegistered) e.getEvent()).getLabels();
                    case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, WORKER_DRAINING, WORKER_LEFT, ATTEMPT_STARTED,
                            ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, TASK_WAITING, ATTEMPT_ASSIGNED, TASK_FINISHED,
                            TASK_CANCELLED, DUPLICATE_SUBMISSION, INPUT_REJECTED, WORKER_ACCEPTED, WORKER_REMOVED,
                            ATTEMPT_REVOKED, WORKER_FENCED, REGISTRATION_REJECTED, TASK_FORGOTTEN,
                            SHARING_POLICY_SET, LIMIT_SET, GANG_SUBMITTED, PARENT_WATCHED, PARENT_ENDED,
                            TASK_BLOCKED -> null;
                };
                if (registered != null) {
                    groups.add("'" + Labels.format(registered) + "'");
                }
            }
            if (!groups.contains("'" + Labels.format(remove.labels()) + "'")) {
                throw new IllegalArgumentException("--remove-group: no worker of pool '" + remove.pool()
                        + "' registered with labels '" + Labels.format(remove.labels()) + "'; its groups: " + groups);
            }
        }
    }
}
