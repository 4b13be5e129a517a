package io.cronoq.gateway;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.Gpu;
import io.cronoq.events.Preference;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerResources;
import io.cronoq.scheduler.policy.GroupSnapshot;
import io.cronoq.scheduler.policy.PoolSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.query.PoolState;
import io.cronoq.schemas.rules.Quantities;
import io.cronoq.schemas.rules.SharingRules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Turns the scheduler's state records into the API's JSON views; ages are measured on the given clock reading. */
final class ViewMapper {

    private ViewMapper() {}

    static TaskView task(TaskRecord record, Instant now) {
        TaskSubmitted t = record.getTask();
        List<TaskView.AttemptView> attempts = new ArrayList<>(record.getAttempts().size());
        for (AttemptRecord a : record.getAttempts()) {
            attempts.add(new TaskView.AttemptView(a.getAttempt(), a.getWorkerId(), sorted(a.getGroup()),
                    a.getGeneration(), text(a.getAssignedAt()), text(a.getStartedAt()), text(a.getFinishedAt()),
                    a.getOutcome() == null ? null : a.getOutcome().name(), a.getError()));
        }
        List<TaskView.PreferenceView> prefer = new ArrayList<>();
        for (Preference p : t.getPreferences()) {
            prefer.add(new TaskView.PreferenceView(sorted(p.getLabels()), p.getWeight()));
        }
        TaskView.WaitingView waiting = null;
        if (record.getState() == TaskState.WAITING) {
            Instant since = record.getWaitingSince();
            waiting = new TaskView.WaitingView(record.getWaitingReason(), text(since),
                    since == null ? null : Math.max(0, Duration.between(since, now).toMillis()));
        }
        return new TaskView(t.getTaskId(), t.getPool(), record.getState().name(), sorted(t.getLabels()),
                resources(t.getResources()), t.getPriority().name(), t.getPayload().remaining(), t.getSubmitter(),
                SharingRules.tenantOf(t.getTenant()), text(t.getSubmittedAt()), text(record.getUpdatedAt()), text(t.getDeadline()), text(t.getNotBefore()),
                text(t.getStartAt()), duration(t.getStartToleranceMs()), duration(t.getTimeoutMs()),
                t.getRetry() == null ? null : t.getRetry().getMaxAttempts(),
                t.getRetry() == null ? null : duration(t.getRetry().getInitialBackoffMs()),
                t.getRetry() == null ? null : duration(t.getRetry().getMaxBackoffMs()), prefer, waiting, attempts);
    }

    static ResourcesView resources(ResourceRequest r) {
        if (r == null) {
            return null;
        }
        return new ResourcesView(r.getCpuMillis() == null ? null : Quantities.formatCpu(r.getCpuMillis()),
                bytes(r.getMemoryBytes()), bytes(r.getDiskBytes()), r.getGpu(), List.copyOf(r.getPackages()));
    }

    static WorkerView worker(WorkerRecord w) {
        List<WorkerView.RunningView> running = new ArrayList<>(w.getRunning().size());
        w.getRunning().forEach(ref -> running.add(new WorkerView.RunningView(ref.getTaskId(), ref.getAttempt())));
        return new WorkerView(w.getWorkerId(), w.getPool(), sorted(w.getLabels()), w.getSlots(), running.size(),
                w.getState().name(), w.getGeneration(), resources(w.getResources()), text(w.getRegisteredAt()),
                text(w.getLastHeartbeat()), running);
    }

    private static WorkerView.WorkerResourcesView resources(WorkerResources r) {
        if (r == null) {
            return null;
        }
        List<WorkerView.GpuView> gpus = new ArrayList<>(r.getGpus().size());
        for (Gpu g : r.getGpus()) {
            gpus.add(new WorkerView.GpuView(g.getIndex(), g.getModel(), Quantities.formatBytes(g.getMemoryBytes()),
                    Quantities.formatBytes(g.getMemoryFreeBytes())));
        }
        return new WorkerView.WorkerResourcesView(Quantities.formatCpu(r.getCpuMillis()),
                Quantities.formatBytes(r.getMemoryBytes()), Quantities.formatBytes(r.getDiskBytes()), gpus,
                sorted(r.getPackages()));
    }

    /** A pool with its groups and, when {@code sharing} is given, its tenants (none otherwise). */
    static PoolView pool(PoolState state, SharingSnapshot sharing, Instant now) {
        PoolSnapshot s = state.snapshot();
        List<PoolView.GroupView> groups = new ArrayList<>(state.groups().size());
        for (PoolState.GroupState g : state.groups()) {
            GroupSnapshot gs = g.snapshot();
            groups.add(new PoolView.GroupView(sorted(gs.labels()), g.key(), gs.capacity(), gs.busy(), gs.workers(),
                    gs.waiting(), age(g.oldestWaitingSince(), now), g.demand(), gs.drainingBusy()));
        }
        return new PoolView(s.pool(), s.capacity(), s.busy(), s.waiting(), age(state.oldestWaitingSince(), now),
                state.demand(), state.unservable(), s.drainingBusy(), groups,
                sharing == null ? List.of() : tenants(sharing, now));
    }

    /** How a pool is shared between tenants. */
    static SharingView sharing(SharingSnapshot s, Instant now) {
        return new SharingView(s.pool(), s.preemption(), s.preemptionGraceMs(), s.slots(), s.gpus(), tenants(s, now));
    }

    private static List<TenantView> tenants(SharingSnapshot s, Instant now) {
        List<TenantView> tenants = new ArrayList<>(s.tenants().size());
        for (SharingSnapshot.TenantShare t : s.tenants()) {
            List<TenantView.QuotaView> quotas = new ArrayList<>(t.quotas().size());
            for (SharingSnapshot.QuotaUse q : t.quotas()) {
                quotas.add(new TenantView.QuotaView(sorted(q.labels()), TenantView.QuotaView.scope(q.labels()),
                        q.guaranteed(), q.max(), q.inUse()));
            }
            tenants.add(new TenantView(t.tenant(), t.weight(), t.slotsInUse(), t.gpusInUse(), t.fairShare(),
                    t.dominantShare(), t.waiting(), text(t.oldestWaitingSince()), age(t.oldestWaitingSince(), now),
                    quotas));
        }
        return tenants;
    }

    private static Long age(Instant since, Instant now) {
        return since == null ? null : Math.max(0, Duration.between(since, now).toMillis());
    }

    private static String bytes(Long bytes) {
        return bytes == null ? null : Quantities.formatBytes(bytes);
    }

    private static String duration(Long millis) {
        return millis == null ? null : Duration.ofMillis(millis).toString();
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private static Map<String, String> sorted(Map<String, String> map) {
        return map == null ? Map.of() : new TreeMap<>(map);
    }
}
