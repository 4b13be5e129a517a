package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.common.Peak;
import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.sharing.Tenants;
import io.cronoq.scheduler.policy.limits.LineLimits;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Preferences;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.events.Preference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * One requirement class: what the waiting tasks with exactly the same {@link Requirement} (labels
 * and resource need) share whatever their tenant. It keeps the profiles that can serve it (labels
 * and resources, computed once when the class or the profile appears), which of those have a free
 * slot now, their total capacity, why its tasks wait, and its tenants' lines ({@link WaitClass}, one
 * per tenant and set of limits its tasks name, seated by tenant in {@link TenantSeats});
 * so deciding where a task goes or why it waits never looks at the backlog, and a profile's change
 * touches each requirement once, however many tenants wait for it.
 */
final class Need {

    final Requirement requirement;
    /** Profiles whose workers satisfy the requirement: maintained by {@link Groups}. */
    final List<Profile> profiles = new ArrayList<>();
    /**
     * Those of {@link #profiles} with a free slot (insertion-ordered; iteration costs its size).
     * Changed only through {@link #list} and {@link #unlist}.
     */
    final LinkedHashSet<Profile> freeProfiles = new LinkedHashSet<>();
    /** Counts the changes of {@link #freeProfiles}: {@link #outside} holds for one value. */
    private long freeChanges;
    private long outsideAt = -1;
    /** For a scope: whether a free profile lies outside it, while {@link #freeProfiles} stays as it was. */
    private final Map<LabelSet, Boolean> outside = new HashMap<>(4);
    /** Slots of the ACTIVE workers of {@link #profiles}. */
    int capacity;
    /** Its tenants' lines: one seat per tenant, in the orders a freed slot reads them. */
    final TenantSeats seats;
    /** Its lines that name limits and that the class index knows (they have no seat while closed). */
    private int limitedLines;
    /** Its lines whose head is urgent (a fixed start, a near deadline): served before any share is weighed. */
    final LinkedHashSet<WaitClass> urgent = new LinkedHashSet<>();
    /** Its tenants' lines that have waiting tasks (kept by {@link ClassIndex}: {@link #waits}, {@link #waitsNoMore}). */
    LinkedHashSet<WaitClass> waiting = new LinkedHashSet<>();
    private final Peak waitingPeak = new Peak();
    /** Tasks waiting in all its lines. */
    long count;
    /** Why its tasks wait (the workers' side), while it has any; {@code null} when empty or not computed since loading. */
    WaitReason reason;
    /** The last {@code Placement.settle} call that listed it. */
    long settle;

    Need(Requirement requirement, Tenants tenants) {
        this.requirement = requirement;
        this.seats = new TenantSeats(tenants);
    }

    /** A limited line with waiting tasks whose limits admit its head: it may take a slot. */
    void open(WaitClass c) {
        if (!c.open) {
            c.open = true;
            seats.open(c);
        }
    }

    /**
     * A limited line leaves the open ones (its limits hold it back, it emptied, or its head is about
     * to move: it is then opened again, in its new place); whether it was open.
     */
    boolean close(WaitClass c) {
        if (!c.open) {
            return false; // no lookup: a line is mostly closed when asked
        }
        c.open = false;
        seats.close(c);
        return true;
    }

    /** A tenant's new line of this class. */
    void addLine(WaitClass c) {
        if (c.limits() != null) {
            limitedLines++;
        } else {
            seats.addPlain(c);
        }
    }

    /** A line's count went from none to some, or back. */
    void counted(WaitClass c) {
        if (c.limits() == null) {
            seats.counted(c);
        }
    }

    /** Whether it has a line (waiting tasks or not) that the class index still knows. */
    boolean hasLines() {
        return limitedLines > 0 || !seats.isEmpty();
    }

    /** A line forgotten (empty for long); whether the class has no line left. */
    boolean removeLine(WaitClass c) {
        if (c.limits() != null) {
            limitedLines--;
        } else {
            seats.removePlain(c);
        }
        return !hasLines();
    }

    /** A line of it has waiting tasks now. */
    void waits(WaitClass c) {
        waiting.add(c);
        waitingPeak.grew(waiting.size());
    }

    /** A line of it has no waiting task left. */
    void waitsNoMore(WaitClass c) {
        waiting.remove(c);
        if (waitingPeak.shrinkNow(waiting.size())) {
            waiting = new LinkedHashSet<>(waiting);
        }
    }

    /** A profile gained a free slot. */
    void list(Profile p) {
        if (freeProfiles.add(p)) {
            freeChanges++;
        }
    }

    /** A profile has no free slot left (or is gone). */
    void unlist(Profile p) {
        if (freeProfiles.remove(p)) {
            freeChanges++;
        }
    }

    /**
     * Whether a free profile is one the tenant may take (see {@link Tenant#mayTake}). A tenant held
     * to one max (the usual case) asks whether a free profile lies outside that max's scope, which
     * is worked out once per scope while the free profiles stay as they are, however many of the
     * class's tenants are held to it.
     */
    boolean anyFreeFor(Tenant t) {
        if (!t.atAnyMax()) {
            return !freeProfiles.isEmpty();
        }
        Tenant.Quota only = t.soleMax();
        if (only == null) {
            for (Profile p : freeProfiles) {
                if (t.mayTake(p.labels())) {
                    return true;
                }
            }
            return false;
        }
        if (outsideAt != freeChanges) {
            outside.clear();
            outsideAt = freeChanges;
        }
        Boolean any = outside.get(only.scope);
        if (any == null) {
            any = false;
            for (Profile p : freeProfiles) {
                if (!p.labels().includes(only.scope)) {
                    any = true;
                    break;
                }
            }
            outside.put(only.scope, any);
        }
        return any;
    }

    LabelSet labels() {
        return requirement.labelSet();
    }

    String key() {
        return requirement.key();
    }

    /** ACTIVE workers that satisfy the requirement. */
    int activeWorkers() {
        int sum = 0;
        for (Profile p : profiles) {
            sum += p.activeWorkers;
        }
        return sum;
    }

    /**
     * The profile a task of this class with these preferences should go to now, or {@code null}
     * when none has a free slot. The order, in full:
     * <ol>
     *   <li>the highest preference score of the group ({@link Preferences}): soft routing first,
     *       among workers that all satisfy the hard constraints;</li>
     *   <li>the group order ({@link Ordering#GROUPS}): fewest labels, so workers with rare
     *       labels stay free for the tasks that need them; then the most free slots this task could
     *       use; then the label key;</li>
     *   <li>inside the group, the profile with the fewest GPUs (a GPU stays free for a task that
     *       needs one), then the least loaded worker, then the one served longest ago
     *       ({@link Ordering#WORKERS}).</li>
     * </ol>
     * Only profiles its tenant may take count (see {@link Tenant#mayTake}). Costs the number of free
     * profiles (usually one per group), never the backlog.
     */
    Profile bestFreeProfile(List<Preference> preferences, Tenant tenant) {
        if (freeProfiles.size() == 1 && !tenant.bounded()) {
            return freeProfiles.iterator().next();
        }
        return best(preferences, tenant, false);
    }

    /** {@link #bestFreeProfile}, among the free profiles where the tenant is below its guarantee. */
    Profile bestDeficitProfile(List<Preference> preferences, Tenant tenant) {
        return best(preferences, tenant, true);
    }

    private Profile best(List<Preference> preferences, Tenant tenant, boolean inDeficit) {
        Profile best = null;
        int bestScore = 0;
        int bestFree = 0;
        for (Profile p : freeProfiles) {
            if (!tenant.mayTake(p.labels()) || inDeficit && tenant.deficitFor(p.labels()) == null) {
                continue;
            }
            int score = Preferences.score(preferences, p.labels());
            int free = best != null && best.group == p.group ? bestFree : freeSlots(p.group);
            if (best == null || better(p, score, free, best, bestScore, bestFree)) {
                best = p;
                bestScore = score;
                bestFree = free;
            }
        }
        return best;
    }

    private static boolean better(Profile p, int score, int free, Profile best, int bestScore, int bestFree) {
        if (p.group != best.group) {
            if (score != bestScore) {
                return score > bestScore;
            }
            return Ordering.GROUPS.compare(new Ordering.GroupRank(p.labels(), free),
                    new Ordering.GroupRank(best.labels(), bestFree)) < 0;
        }
        return Ordering.PROFILES.compare(p, best) < 0;
    }

    /** Free slots of a group's profiles that serve this class. */
    private int freeSlots(Group g) {
        int free = 0;
        for (Profile p : g.profiles()) {
            if (freeProfiles.contains(p)) {
                free += p.free();
            }
        }
        return free;
    }

    @Override
    public String toString() {
        return "Need[" + requirement.key() + " count=" + count + "]";
    }
}
