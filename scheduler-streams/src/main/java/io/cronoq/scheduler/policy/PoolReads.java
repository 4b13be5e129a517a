package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.sharing.Tenants;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;

/**
 * What one pool's policy shows without changing anything: capacity, busy and waiting per group,
 * the waiting classes with their reasons, a worker's record. Reads cost the number of groups or
 * classes (one task read per class), never the backlog. A leaving worker ({@link Leaves}) reads as
 * what it is: DRAINING (out of capacity, its attempts under {@code drainingBusy}) with the time its
 * leave was heard ({@code leftAt}) and its reason in its record.
 */
record PoolReads(PoolModel m, Placement placement) {

    PoolSnapshot snapshot() {
        List<Group> all = m.groups.all();
        all.sort(Comparator.comparing(g -> g.labels().key()));
        java.util.Map<Need, Long> gangMembers = placement.gangs.waitingMembers();
        long gangWaiting = 0;
        for (long n : gangMembers.values()) {
            gangWaiting += n;
        }
        List<GroupSnapshot> snapshots = new ArrayList<>(all.size());
        int capacity = 0;
        int busy = 0;
        int draining = 0;
        for (Group g : all) {
            HashSet<Need> served = new HashSet<>();
            long waiting = 0;
            for (Profile p : g.profiles()) {
                for (Need n : p.needs) {
                    if (served.add(n)) {
                        waiting += n.count - heldByLimits(n) + gangMembers.getOrDefault(n, 0L);
                    }
                }
            }
            snapshots.add(new GroupSnapshot(g.labels().asMap(), g.capacity(), g.busy(), g.activeWorkers(), waiting,
                    g.drainingBusy()));
            capacity += g.capacity();
            busy += g.busy();
            draining += g.drainingBusy();
        }
        return new PoolSnapshot(m.pool, capacity, busy, m.classes.waiting() + gangWaiting, List.copyOf(snapshots),
                draining, m.blocked());
    }

    /** Tasks of the class that a concurrency key or a rate limit holds back: no slot of any group would start them now. */
    private static long heldByLimits(Need n) {
        long held = 0;
        for (WaitClass c : n.waiting) {
            if (c.blockedBy() != null) {
                held += c.count;
            }
        }
        return held;
    }

    List<ClassSnapshot> classes() {
        List<WaitClass> waiting = new ArrayList<>(m.classes.waitingClasses());
        waiting.sort(Comparator.comparing(WaitClass::key));
        List<ClassSnapshot> result = new ArrayList<>(waiting.size());
        for (WaitClass c : waiting) {
            TaskRecord head = m.store.task(c.headTaskId);
            Instant submitted = head == null ? null : head.getTask().getSubmittedAt();
            Instant since = head == null || head.getWaitingSince() == null ? submitted : head.getWaitingSince();
            Requirement r = c.requirement;
            String held = placement.reasons.heldByMax(c);
            String reason = c.blockedBy() != null ? m.limits.reason(c, c.blockedBy())
                    : held != null ? held : placement.reasons.reasonOf(c.need).text();
            result.add(new ClassSnapshot(r.key(), c.tenant.name(), r.labels(), r.resources(), c.count, c.need.capacity,
                    c.need.activeWorkers(), c.headTaskId, submitted, since, reason,
                    c.limits() == null ? null : c.limits().text(), c.blockedBy() != null));
        }
        result.addAll(placement.gangs.classes()); // a waiting gang's members wait outside the lines, counted as one
        return List.copyOf(result);
    }

    SharingSnapshot sharing() {
        Tenants tenants = m.tenants;
        List<Tenant> shown = new ArrayList<>();
        double demandWeights = 0;
        for (Tenant t : tenants.all()) {
            if (t.hasDemand() || t.weight() != 1.0 || !t.quotas().isEmpty()) {
                shown.add(t);
            }
            if (t.hasDemand()) {
                demandWeights += t.weight();
            }
        }
        shown.sort(Comparator.comparing(t -> t.name()));
        List<SharingSnapshot.TenantShare> result = new ArrayList<>(shown.size());
        for (Tenant t : shown) {
            long waiting = 0;
            Instant oldest = null;
            for (WaitClass c : m.classes.waitingOf(t)) {
                waiting += c.count;
                TaskRecord head = m.store.task(c.headTaskId);
                if (head == null) {
                    continue; // a read beside the running scheduler saw the line before the head's record, as classes() allows
                }
                Instant since = PoolModel.waitingSince(head);
                if (oldest == null || since.isBefore(oldest)) {
                    oldest = since;
                }
            }
            double fair = t.hasDemand() && demandWeights > 0 ? tenants.poolSlots() * t.weight() / demandWeights : 0;
            List<SharingSnapshot.QuotaUse> quotas = new ArrayList<>(t.quotas().size());
            for (Tenant.Quota q : t.quotas()) {
                quotas.add(new SharingSnapshot.QuotaUse(q.scope.asMap(), q.guaranteed, q.bounded() ? q.max : null, q.inUse()));
            }
            result.add(new SharingSnapshot.TenantShare(t.name(), t.weight(), t.slots(), t.gpus(), fair, tenants.share(t),
                    waiting, oldest, List.copyOf(quotas)));
        }
        return new SharingSnapshot(m.pool, tenants.preemption(), tenants.preemptionGraceMs(), tenants.poolSlots(),
                tenants.poolGpus(), List.copyOf(result));
    }

    WorkerRecord worker(String workerId) {
        Worker w = m.workers.get(workerId);
        if (w == null) {
            return null;
        }
        WorkerRecord r = w.record;
        List<AttemptRef> running = new ArrayList<>(r.getRunning().size());
        for (AttemptRef ref : r.getRunning()) {
            running.add(new AttemptRef(ref.getTaskId(), ref.getAttempt(), ref.getTenant(), ref.getGpus(), java.util.List.of()));
        }
        return new WorkerRecord(r.getWorkerId(), r.getPool(), new HashMap<>(r.getLabels()), r.getSlots(),
                r.getResources(), r.getGeneration(), r.getState(), running, r.getRegisteredAt(),
                r.getLastAssignedSequence(), r.getLastHeartbeat(), r.getLeftAt(), r.getLeaveReason(), r.getAddress());
    }
}
