package io.cronoq.scheduler.policy.limits;

import java.util.LinkedHashSet;

/**
 * A concurrency key of a pool that some line names, some attempt holds, or an admin limited: what
 * holds it now and the limit a task meets ({@link #limitFor}); see {@link Limits} for the rules.
 */
final class LimitKey<L extends Line> {

    final String name;
    /** The limit an admin set; 0: none. */
    int admin;
    /** Attempts holding it (assigned or running). */
    int held;
    /** The max each holding attempt's task declared (0: none), with how many hold it so: usually one or two. */
    private int[] maxes = new int[1];
    private int[] holding = new int[1];
    private int kinds;
    /** Lines with waiting tasks that name it. */
    final LinkedHashSet<L> lines = new LinkedHashSet<>();

    LimitKey(String name) {
        this.name = name;
    }

    /** The limit a task that declared {@code max} (0: none) meets now; see {@link Limits} for the rules. */
    int limitFor(int max) {
        int limit = max > 0 ? Math.min(max, admin > 0 ? admin : Integer.MAX_VALUE) : byDefault();
        return held > 0 ? Math.min(limit, smallestHeld()) : limit;
    }

    /** The smallest limit among the attempts holding it, or {@link Integer#MAX_VALUE} when none does. */
    int smallestHeld() {
        int smallest = Integer.MAX_VALUE;
        for (int i = 0; i < kinds; i++) {
            int max = maxes[i];
            smallest = Math.min(smallest, max == 0 ? byDefault() : admin > 0 ? Math.min(max, admin) : max);
        }
        return smallest;
    }

    private int byDefault() {
        return admin > 0 ? admin : 1;
    }

    /** One more ({@code delta} 1) or one fewer (-1) attempt holding it that declared {@code max}. */
    void count(int max, int delta) {
        for (int i = 0; i < kinds; i++) {
            if (maxes[i] == max) {
                holding[i] += delta;
                if (holding[i] == 0) {
                    kinds--;
                    maxes[i] = maxes[kinds];
                    holding[i] = holding[kinds];
                }
                return;
            }
        }
        if (delta > 0) {
            if (kinds == maxes.length) {
                maxes = java.util.Arrays.copyOf(maxes, kinds * 2);
                holding = java.util.Arrays.copyOf(holding, kinds * 2);
            }
            maxes[kinds] = max;
            holding[kinds++] = delta;
        }
    }
}
