package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Preferences;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.LineKeys;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.events.Preference;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * One requirement class of one tenant: the waiting tasks of a {@link Tenant} with exactly the same
 * {@link Requirement} (labels and resource need). Each tenant has lines of its own, so a freed slot
 * can choose between tenants before it chooses inside one. In memory it keeps only their count and the head of their line (the tasks stay in
 * the {@link WaitingQueue}), the profiles that can serve it (labels and resources, computed once
 * when the class or the profile appears), which of those have a free slot now, their total
 * capacity, and why its tasks wait; so deciding where a task goes or why it waits never looks at
 * the backlog.
 */
final class WaitClass {

    final Requirement requirement;
    final Tenant tenant;
    /** The key of its line in the waiting store ({@link LineKeys}). */
    private final String key;
    /** Profiles whose workers satisfy the requirement: maintained by {@link Groups}. */
    final List<Profile> profiles = new ArrayList<>();
    /** Those of {@link #profiles} with a free slot (insertion-ordered; iteration costs its size). */
    final LinkedHashSet<Profile> freeProfiles = new LinkedHashSet<>();
    /** Slots of the ACTIVE workers of {@link #profiles}. */
    int capacity;

    long count;
    Place headPlace;
    String headTaskId;
    /** Why its tasks wait, while it has any; {@code null} when empty or not computed since loading. */
    WaitReason reason;

    WaitClass(Requirement requirement, Tenant tenant) {
        this.requirement = requirement;
        this.tenant = tenant;
        this.key = LineKeys.of(requirement.key(), tenant.name);
    }

    LabelSet labels() {
        return requirement.labelSet();
    }

    /** Its line key: the requirement key, and the tenant when not the default. */
    String key() {
        return key;
    }

    /** Whether it has waiting tasks and a free profile its tenant may take (its max quotas allow it). */
    boolean servable() {
        if (count == 0 || freeProfiles.isEmpty()) {
            return false;
        }
        if (!tenant.bounded) {
            return true;
        }
        for (Profile p : freeProfiles) {
            if (tenant.mayTake(p.labels())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a free profile it may take lies in a scope where its tenant is below its guarantee. */
    boolean hasDeficitProfile() {
        if (!tenant.guaranteed) {
            return false;
        }
        for (Profile p : freeProfiles) {
            if (tenant.deficitFor(p.labels()) != null && tenant.mayTake(p.labels())) {
                return true;
            }
        }
        return false;
    }

    /** {@link #bestFreeProfile}, among the free profiles where its tenant is below its guarantee. */
    Profile bestDeficitProfile(List<Preference> preferences) {
        return best(preferences, true);
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
    Profile bestFreeProfile(List<Preference> preferences) {
        if (freeProfiles.size() == 1 && !tenant.bounded) {
            return freeProfiles.iterator().next();
        }
        return best(preferences, false);
    }

    private Profile best(List<Preference> preferences, boolean inDeficit) {
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
        return "WaitClass[" + requirement.key() + " tenant=" + tenant.name + " count=" + count + "]";
    }
}
