package io.cronoq.scheduler.policy.match;

import io.cronoq.events.Preference;
import java.util.List;

/**
 * Soft routing: how much a task would like a worker. The score of a worker is the sum of the
 * weights of the task's preferences whose labels it all carries (Kubernetes' preferred node
 * affinity). It only ranks workers that already satisfy every hard constraint: it never makes a
 * worker eligible, and a task waits rather than go to a worker it does not satisfy.
 */
public final class Preferences {

    private Preferences() {}

    /** The score of a worker carrying these labels; 0 when the task prefers nothing. */
    public static int score(List<Preference> preferences, LabelSet labels) {
        if (preferences == null || preferences.isEmpty()) {
            return 0;
        }
        int score = 0;
        for (Preference p : preferences) {
            if (labels.includes(p.getLabels())) {
                score += p.getWeight();
            }
        }
        return score;
    }
}
