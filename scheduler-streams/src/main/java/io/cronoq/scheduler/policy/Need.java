package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.limits.LineLimits;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Preferences;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.events.Preference;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * One requirement class: what the waiting tasks with exactly the same {@link Requirement} (labels
 * and resource need) share whatever their tenant. It keeps the profiles that can serve it (labels
 * and resources, computed once when the class or the profile appears), which of those have a free
 * slot now, their total capacity, why its tasks wait, and its tenants' lines ({@link WaitClass}, one
 * per tenant and set of limits its tasks name);
 * so deciding where a task goes or why it waits never looks at the backlog, and a profile's change
 * touches each requirement once, however many tenants wait for it.
 */
final class Need {

    final Requirement requirement;
    /** Profiles whose workers satisfy the requirement: maintained by {@link Groups}. */
    final List<Profile> profiles = new ArrayList<>();
    /** Those of {@link #profiles} with a free slot (insertion-ordered; iteration costs its size). */
    final LinkedHashSet<Profile> freeProfiles = new LinkedHashSet<>();
    /** Slots of the ACTIVE workers of {@link #profiles}. */
    int capacity;
    /** Its tenants' lines, known ones, at their tenant's {@link Tenant#index} (maintained by {@link Groups}). */
    private WaitClass[] lines = new WaitClass[1];
    /** How many of {@link #lines} are set. */
    private int lineCount;
    /**
     * Its tenants' lines that name limits ({@link LineLimits}), have waiting tasks and whose limits
     * admit their head now, at their tenant's index, each set ordered by head place (maintained by
     * {@link Limits} and {@link ClassIndex}): a tenant may have many, one per set of limits.
     */
    private OpenLines[] open = new OpenLines[0];
    /** How many lines {@link #open} holds in all: none, and a tenant's line is its unlimited one alone. */
    private int openCount;
    /** Its lines whose head is urgent (a fixed start, a near deadline): served before any share is weighed. */
    final LinkedHashSet<WaitClass> urgent = new LinkedHashSet<>();
    /** Its tenants' lines that have waiting tasks (maintained by {@link ClassIndex}). */
    final LinkedHashSet<WaitClass> waiting = new LinkedHashSet<>();
    /** Tasks waiting in all its lines. */
    long count;
    /** Why its tasks wait (the workers' side), while it has any; {@code null} when empty or not computed since loading. */
    WaitReason reason;
    /** The last {@code Placement.settle} call that listed it. */
    long settle;

    Need(Requirement requirement) {
        this.requirement = requirement;
    }

    /**
     * The tenant's line of this class that a freed slot would serve first: of its line naming no
     * limit (if it has waiting tasks) and its open limited lines, the one whose head comes first; or
     * {@code null}. A line its limits hold back is never returned, so it holds up no other.
     */
    WaitClass waitingLineOf(Tenant t) {
        WaitClass c = t.index() < lines.length ? lines[t.index()] : null;
        if (c != null && c.count == 0) {
            c = null;
        }
        if (openCount == 0) {
            return c;
        }
        OpenLines limited = t.index() < open.length ? open[t.index()] : null;
        if (limited == null || limited.isEmpty()) {
            return c;
        }
        WaitClass first = limited.first();
        return c == null || first.headPlace.before(c.headPlace) ? first : c;
    }

    /** A limited line with waiting tasks whose limits admit its head: it may take a slot. */
    void open(WaitClass c) {
        int i = c.tenant.index();
        if (i >= open.length) {
            open = java.util.Arrays.copyOf(open, Math.max(i + 1, open.length * 2));
        }
        if (open[i] == null) {
            open[i] = new OpenLines();
        }
        if (!c.open) {
            open[i].add(c);
            openCount++;
            c.open = true;
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
        open[c.tenant.index()].remove(c);
        openCount--;
        c.open = false;
        return true;
    }

    /** A tenant's new line of this class. */
    void addLine(WaitClass c) {
        if (c.limits() != null) {
            lineCount++;
            return;
        }
        int i = c.tenant.index();
        if (i >= lines.length) {
            lines = java.util.Arrays.copyOf(lines, Math.max(i + 1, lines.length * 2));
        }
        if (lines[i] == null) {
            lineCount++;
        }
        lines[i] = c;
    }

    /** Whether it has a line (waiting tasks or not) that the class index still knows. */
    boolean hasLines() {
        return lineCount > 0;
    }

    /** A line forgotten (empty for long); whether the class has no line left. */
    boolean removeLine(WaitClass c) {
        if (c.limits() != null) {
            return --lineCount == 0;
        }
        int i = c.tenant.index();
        if (i < lines.length && lines[i] == c) {
            lines[i] = null;
            lineCount--;
        }
        return lineCount == 0;
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
