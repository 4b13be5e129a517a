package io.cronoq.bench;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The tenants a bench run spreads its tasks over, and the sharing policy each pool gives them: the
 * same for every run of the same count, so runs compare. Tenant {@code t} is {@code bench-tenant-<t>}
 * and task {@code k} runs for tenant {@code k mod count}. Its weight is {@code 1 + t mod 4}. A tenth
 * are guaranteed slots of the whole pool ({@code t mod 10 == 1}): one guarantee each, as large as keeps
 * the guarantees together at most half the pool's slots, and at least one slot (when the pool has too
 * few slots for that, only the first of them, as many as half its slots, are guaranteed). A tenth are
 * bounded by a max over the whole pool ({@code t mod 10 == 2}): twice their weighted fair share of its
 * slots, at least one. With one tenant the tasks name none and no policy is set, as before tenants.
 */
public final class BenchTenants {

    /**
     * The most tenants a run may have. A pool's sharing policy is one stored record, about 30 bytes
     * per tenant with a policy of its own (four in five here): past some 30,000 such tenants it
     * nears Kafka's default limit of 1 MB per record, so the bench stays well below.
     */
    public static final int MAX = 20_000;
    /** The stem of every tenant name: tenant {@code t} is {@code bench-tenant-<t>}. */
    public static final String STEM = "bench-tenant-";
    /** Who the bench's policy changes say set them, as the journal shows it. */
    static final String SET_BY = "cronoq bench";

    private final int count;
    private final double totalWeight;

    /** {@code count} tenants (1 to {@link #MAX}). */
    public BenchTenants(int count) {
        if (count < 1 || count > MAX) {
            throw new IllegalArgumentException("tenants: " + count + " is not from 1 to " + MAX);
        }
        this.count = count;
        double weights = 0;
        for (int t = 0; t < count; t++) {
            weights += weight(t);
        }
        this.totalWeight = weights;
    }

    /** How many tenants there are. */
    public int count() {
        return count;
    }

    /** Whether the tasks are shared out at all: more than one tenant. */
    public boolean shared() {
        return count > 1;
    }

    /** The name of tenant {@code t}. */
    public static String name(int t) {
        return STEM + t;
    }

    /** The tenant task {@code k} runs for, or null (the tenant {@code default}) when the tasks are not shared out. */
    public String ofTask(long k) {
        return shared() ? name((int) (k % count)) : null;
    }

    /** The weight of tenant {@code t}: 1 to 4. */
    public static double weight(int t) {
        return 1 + t % 4;
    }

    /** How many tenants of a pool with {@code poolSlots} slots are guaranteed slots. */
    public int guaranteedIn(long poolSlots) {
        return (int) Math.min(aTenthFrom(1), poolSlots / 2);
    }

    /** The slots each guaranteed tenant of a pool with {@code poolSlots} slots is guaranteed (0 when none is). */
    public int guaranteeIn(long poolSlots) {
        int guaranteed = guaranteedIn(poolSlots);
        return guaranteed == 0 ? 0 : (int) Math.max(1, poolSlots / 2 / guaranteed);
    }

    /** How many tenants are bounded by a max. */
    public int boundedCount() {
        return aTenthFrom(2);
    }

    /** The max of tenant {@code t}, if bounded, in a pool of {@code poolSlots}: twice its weighted fair share, or 1. */
    public int maxOf(int t, long poolSlots) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (long) (2 * poolSlots * weight(t) / totalWeight)));
    }

    /**
     * The sharing policy of {@code pool}, of {@code poolSlots} slots, as the changes an admin would make
     * ({@code cronoq tenants set} for each tenant), stamped {@code at}; none when the tasks are not shared out.
     */
    public List<SharingPolicySet> policy(String pool, long poolSlots, Instant at) {
        if (!shared()) {
            return List.of();
        }
        List<SharingPolicySet> changes = new ArrayList<>(count);
        int guaranteed = guaranteedIn(poolSlots);
        int guarantee = guaranteeIn(poolSlots);
        for (int t = 0; t < count; t++) {
            List<TenantQuota> quotas = null;
            if (t % 10 == 1 && t / 10 < guaranteed) {
                quotas = List.of(new TenantQuota(Map.of(), guarantee, null));
            } else if (t % 10 == 2) {
                quotas = List.of(new TenantQuota(Map.of(), 0, maxOf(t, poolSlots)));
            }
            changes.add(new SharingPolicySet(pool, name(t), weight(t), quotas, null, null, SET_BY, at));
        }
        return changes;
    }

    /** How many of the tenants have {@code t mod 10 == rest}. */
    private int aTenthFrom(int rest) {
        return count <= rest ? 0 : (count - 1 - rest) / 10 + 1;
    }
}
