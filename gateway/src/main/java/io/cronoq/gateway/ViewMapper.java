package io.cronoq.gateway;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.GangSpec;
import io.cronoq.events.Gpu;
import io.cronoq.events.Preference;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerResources;
import io.cronoq.scheduler.policy.GroupSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.PoolSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.query.PoolState;
import io.cronoq.schemas.rules.Quantities;
import io.cronoq.schemas.rules.SharingRules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
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
        List<TaskView.ConcurrencyView> concurrency = new ArrayList<>(t.getConcurrency().size());
        for (ConcurrencyKey k : t.getConcurrency()) {
            concurrency.add(new TaskView.ConcurrencyView(k.getKey(), k.getMax()));
        }
        List<TaskView.RateLimitView> rateLimits = new ArrayList<>(t.getRateLimits().size());
        for (RateLimitUse r : t.getRateLimits()) {
            rateLimits.add(new TaskView.RateLimitView(r.getName(), r.getUnits()));
        }
        TaskView.WaitingView waiting = null;
        if (record.getState() == TaskState.WAITING || record.getState() == TaskState.BLOCKED) {
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
                t.getRetry() == null ? null : duration(t.getRetry().getMaxBackoffMs()), prefer, concurrency, rateLimits,
                waiting, attempts, gang(t.getGang()), parents(t), t.getAfter().isEmpty() ? null
                        : t.getRunIfParentUnmet() ? "run" : "cancel",
                record.getState() == TaskState.BLOCKED ? record.getUnmetParents() : null, t.getWorkflow(), null, null);
    }

    /** The bytes as UTF-8 text, or {@code null} when they are not. */
    static String utf8(java.nio.ByteBuffer bytes) {
        try {
            return java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(bytes.duplicate()).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    static byte[] bytes(java.nio.ByteBuffer buffer) {
        java.nio.ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** The parents a task waits for, each in its pool (its own when the submission named none). */
    static List<TaskView.ParentView> parents(TaskSubmitted t) {
        List<TaskView.ParentView> after = new ArrayList<>(t.getAfter().size());
        for (io.cronoq.events.Dependency d : t.getAfter()) {
            after.add(new TaskView.ParentView(d.getTask(), d.getPool() == null ? t.getPool() : d.getPool(),
                    d.getWhen().name().toLowerCase(java.util.Locale.ROOT)));
        }
        return after;
    }

    /** A member's place in its gang, or null for a task of its own. */
    static TaskView.GangView gang(GangSpec g) {
        return g == null ? null : new TaskView.GangView(g.getGangId(), g.getSize(), g.getRank(), g.getPlacement().name(),
                g.getSameLabel());
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

    /**
     * A pool with its groups, its limits and its waiting classes (as many as {@code caps} lists) and, when
     * {@code sharing} is given, its tenants (none otherwise).
     */
    static PoolView pool(PoolState state, SharingSnapshot sharing, Instant now, ListCaps caps) {
        PoolSnapshot s = state.snapshot();
        List<PoolView.GroupView> groups = new ArrayList<>(state.groups().size());
        for (PoolState.GroupState g : state.groups()) {
            GroupSnapshot gs = g.snapshot();
            groups.add(new PoolView.GroupView(sorted(gs.labels()), g.key(), gs.capacity(), gs.busy(), gs.workers(),
                    gs.waiting(), age(g.oldestWaitingSince(), now), g.demand(), gs.drainingBusy()));
        }
        List<PoolState.ClassState> classes = new ArrayList<>(state.classes());
        classes.sort(LONGEST_WAITING_FIRST);
        List<PoolView.ClassView> shown = new ArrayList<>(Math.min(classes.size(), caps.classes()));
        for (PoolState.ClassState c : classes.subList(0, Math.min(classes.size(), caps.classes()))) {
            shown.add(new PoolView.ClassView(c.key(), c.tenant(), c.waiting(), c.headTaskId(),
                    age(c.oldestWaitingSince(), now), c.workers(), c.limits(), c.heldByLimit()));
        }
        LimitsSnapshot limits = state.limits() != null ? state.limits()
                : new LimitsSnapshot(s.pool(), List.of(), List.of());
        return new PoolView(s.pool(), s.capacity(), s.busy(), s.waiting(), age(state.oldestWaitingSince(), now),
                state.demand(), state.unservable(), s.drainingBusy(), state.heldByLimits(), groups,
                sharing == null ? List.of() : tenants(sharing, now), limits(limits, caps).inPool(), classes.size(), shown,
                s.blocked());
    }

    /** The longest-waiting line first (a line without a head time last), then by class key, tenant and limits. */
    private static final Comparator<PoolState.ClassState> LONGEST_WAITING_FIRST = Comparator
            .comparing(PoolState.ClassState::oldestWaitingSince, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing(PoolState.ClassState::key)
            .thenComparing(PoolState.ClassState::tenant)
            .thenComparing(PoolState.ClassState::limits, Comparator.nullsFirst(Comparator.naturalOrder()));

    /** A pool's concurrency keys (the first {@code caps.keys()} in the snapshot's order) and its rate limits. */
    static PoolLimitsView limits(LimitsSnapshot s, ListCaps caps) {
        int inUse = 0;
        int atLimit = 0;
        long heldByKeys = 0;
        List<PoolLimitsView.KeyView> keys = new ArrayList<>(Math.min(s.keys().size(), caps.keys()));
        for (LimitsSnapshot.KeyUse k : s.keys()) {
            boolean full = atLimit(k);
            inUse += k.running() > 0 ? 1 : 0;
            atLimit += full ? 1 : 0;
            heldByKeys += k.heldBack();
            if (keys.size() < caps.keys()) {
                keys.add(new PoolLimitsView.KeyView(k.key(), k.limit(), k.running(), k.inForce(), full, k.heldBack()));
            }
        }
        long heldByRates = 0;
        List<PoolLimitsView.RateView> rates = new ArrayList<>(s.rates().size());
        for (LimitsSnapshot.RateUse r : s.rates()) {
            heldByRates += r.heldBack();
            rates.add(r.defined()
                    ? new PoolLimitsView.RateView(r.name(), true, r.perSecond(), r.burst(), units(r.available()),
                            r.heldBack())
                    : new PoolLimitsView.RateView(r.name(), false, null, null, null, r.heldBack()));
        }
        return new PoolLimitsView(s.pool(), s.keys().size(), inUse, atLimit, heldByKeys, heldByRates, keys, rates);
    }

    /** Whether the attempts holding a key allow no other task to start beside them. */
    static boolean atLimit(LimitsSnapshot.KeyUse k) {
        return k.running() > 0 && k.inForce() != null && k.running() >= k.inForce();
    }

    /** Units of a bucket to 3 decimals: what a person reads, not the refill's rounding noise. */
    private static double units(double available) {
        return Math.floor(available * 1000 + 1e-6) / 1000;
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

    static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    private static Map<String, String> sorted(Map<String, String> map) {
        return map == null ? Map.of() : new TreeMap<>(map);
    }
}
