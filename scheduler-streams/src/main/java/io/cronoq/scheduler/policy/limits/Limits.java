package io.cronoq.scheduler.policy.limits;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.LimitsRecord;
import io.cronoq.events.RateBucket;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.common.Noticed;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.LimitRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The concurrency keys and rate limits of one pool: what each key's running attempts hold and each
 * rate limit's bucket has left, and which lines they hold back; the one entry placement calls into
 * this package. A line whose limits do not admit its head now is <em>blocked</em> ({@link
 * Line#blockedBy}): it leaves its requirement class's open lines ({@link Line#heldBack}), so
 * placement never looks at it and every other line of the pool goes on (no head-of-line blocking);
 * when the key is freed or the bucket refills, the line is opened again ({@link Line#admitted}) and
 * placement looks at it on its next settle ({@link #drainOpened}). {@code L} is placement's line.
 *
 * <p>The rules, stated where they are applied:
 * <ul>
 *   <li>A concurrency key is held from an attempt's assignment to its end, however it ends (success,
 *       failure, revocation, preemption, loss with its worker), exactly once: with its slot.</li>
 *   <li>A task may start while fewer attempts hold each of its keys than the key's limit for it:
 *       the smallest of its own max, the key's limit set by an admin (its default for tasks naming no
 *       max, and its ceiling), and the max of every attempt holding the key now; 1 when none is given.
 *       So no attempt ever runs beside more holders of a key than its own max allows.</li>
 *   <li>A rate limit is a bucket of units refilled at {@code perSecond} up to {@code burst}; a task's
 *       units are taken at assignment and never given back. A task naming a rate limit that is not
 *       defined waits until it is.</li>
 *   <li>Time is an input: the bucket refills on the decision clock, the latest time the policy was
 *       told (an input's time, a tick), so replay and simulation take the same decisions.</li>
 * </ul>
 * Not thread-safe: one pool, one thread.
 */
public final class Limits<L extends Line> {

    private final String pool;
    private final PoolStore store;
    private final LimitsRecord record;
    private final Map<String, LimitKey<L>> keys = new HashMap<>();
    private final Map<String, RateLimit<L>> rates = new TreeMap<>();
    /** The decision clock: the latest time the policy was told, in milliseconds. */
    private long now = Long.MIN_VALUE;
    /** Lines opened since placement last looked ({@link #drainOpened}). */
    private final List<L> opened = new ArrayList<>();
    /** Lines whose blocker changed since their head was last told ({@link #takeChanged}). */
    private final Noticed<L> changed = new Noticed<>();
    /** Defined rate limits that hold lines back: a tick looks at them when their {@link RateLimit#due} comes. */
    private final LinkedHashSet<RateLimit<L>> waitedOn = new LinkedHashSet<>();

    /** The pool's limits as its store keeps them (none: no key limited, no rate limit defined). */
    public Limits(String pool, PoolStore store) {
        this.pool = pool;
        this.store = store;
        LimitsRecord stored = store.limits();
        this.record = stored != null ? stored : new LimitsRecord(pool, new HashMap<>(), new HashMap<>());
        record.getKeys().forEach((name, max) -> key(name).admin = max);
        record.getRates().forEach((name, bucket) -> {
            rate(name).bucket = bucket;
            now = Math.max(now, bucket.getAt().toEpochMilli());
        });
    }

    /** The decision clock moves on to {@code at} (never back). */
    public void clock(Instant at) {
        now = Math.max(now, at.toEpochMilli());
    }

    // ---- lines ---------------------------------------------------------------------------------

    /**
     * What holds a line's head back now (a {@link LimitKey} at its limit, a {@link RateLimit} short of units or
     * undefined), or {@code null} when its limits admit it. Costs the number of limits it names.
     */
    public Object blocker(Line c) {
        LineLimits l = c.limits;
        for (int i = 0; i < l.keyNames.length; i++) {
            LimitKey<?> k = l.keys[i] != null ? l.keys[i] : keys.get(l.keyNames[i]);
            if (k != null && k.held >= k.limitFor(l.declared[i])) {
                return k;
            }
        }
        for (int i = 0; i < l.rateNames.length; i++) {
            RateLimit<?> r = l.rates[i] != null ? l.rates[i] : rate(l.rateNames[i]);
            if (r.bucket == null || r.available(now) < l.units[i]) {
                return r;
            }
        }
        return null;
    }

    /**
     * Why tasks that must all start at once (a gang's members) cannot now, or {@code null} when their
     * limits admit every one of them together: each concurrency key they name must hold all of its
     * holders then (its holders now and every member naming it) within the smallest limit any of them
     * meets, and each rate limit they name must hold the units all of them take. {@link AllAtOnce#due}
     * says when a rate limit will hold them ({@link Long#MAX_VALUE}: not by time alone).
     */
    public AllAtOnce heldBack(List<TaskSubmitted> tasks) {
        Map<String, int[]> named = null; // per key: members naming it, the smallest limit one of them meets
        Map<String, Integer> units = null;
        for (TaskSubmitted t : tasks) {
            for (ConcurrencyKey ck : t.getConcurrency()) {
                LimitKey<L> k = keys.get(ck.getKey());
                int declared = ck.getMax() == null ? 0 : ck.getMax();
                int limit = k != null ? k.limitFor(declared) : declared > 0 ? declared : 1;
                named = named == null ? new LinkedHashMap<>() : named;
                int[] n = named.computeIfAbsent(ck.getKey(), x -> new int[] {0, Integer.MAX_VALUE});
                n[0]++;
                n[1] = Math.min(n[1], limit);
            }
            for (RateLimitUse use : t.getRateLimits()) {
                units = units == null ? new LinkedHashMap<>() : units;
                units.merge(use.getName(), use.getUnits(), Integer::sum);
            }
        }
        if (named != null) {
            for (Map.Entry<String, int[]> e : named.entrySet()) {
                LimitKey<L> k = keys.get(e.getKey());
                int held = k == null ? 0 : k.held;
                int[] n = e.getValue();
                if (held + n[0] > n[1]) {
                    return new AllAtOnce("concurrency key " + e.getKey() + ": " + held + "/" + n[1] + " running, and "
                            + n[0] + (n[0] == 1 ? " member needs" : " members need") + " it at once", Long.MAX_VALUE,
                            "key " + e.getKey());
                }
            }
        }
        if (units != null) {
            for (Map.Entry<String, Integer> e : units.entrySet()) {
                RateLimit<L> r = rates.get(e.getKey());
                int need = e.getValue();
                if (r == null || r.bucket == null) {
                    return new AllAtOnce("rate limit " + e.getKey() + " is not defined in pool " + pool
                            + ": the gang waits until an admin defines it", Long.MAX_VALUE, "undefined rate " + e.getKey());
                }
                if (need > r.bucket.getBurst()) {
                    return new AllAtOnce("rate limit " + e.getKey() + " holds at most " + r.bucket.getBurst()
                            + " units (its burst) and the members take " + need + " at once: it waits until an admin "
                            + "raises the burst", Long.MAX_VALUE, "burst of rate " + e.getKey());
                }
                if (r.available(now) < need) {
                    long due = r.dueFor(need);
                    return new AllAtOnce("rate limit " + e.getKey() + ": " + (long) Math.floor(r.available(now)) + " of "
                            + perSecond(r.bucket.getPerSecond()) + "/s left, the members take " + need + " at once, next in "
                            + Durations.words(Math.max(0, due - now)), due, "rate " + e.getKey());
                }
            }
        }
        return null;
    }

    /**
     * Why tasks that must start together wait for their limits, when a rate limit will admit them, and
     * what holds them back, in kind ({@code key k}, {@code rate r}, {@code burst of rate r}, {@code
     * undefined rate r}): the same kind told again would only repeat its figures.
     */
    public record AllAtOnce(String reason, long due, String what) {}

    /** A limited line got its first waiting task: it holds its keys and rates, and is open or blocked. */
    public void lineJoined(L c) {
        LineLimits l = c.limits;
        for (int i = 0; i < l.keyNames.length; i++) {
            LimitKey<L> k = key(l.keyNames[i]);
            l.keys[i] = k;
            k.lines.add(c);
        }
        for (int i = 0; i < l.rateNames.length; i++) {
            RateLimit<L> r = rate(l.rateNames[i]);
            l.rates[i] = r;
            r.lines.add(c);
        }
        c.blockedBy = blocker(c);
        c.told = c.blockedBy; // whoever put the task in line tells it why it waits, and looks at its line
        if (c.blockedBy == null) {
            c.admitted();
        } else if (c.blockedBy instanceof RateLimit<?> r) {
            waitOn(r, c);
        }
    }

    /** A limited line's last waiting task left: it lets go of its keys and rates. */
    public void lineEmptied(L c) {
        LineLimits l = c.limits;
        c.heldBack();
        for (int i = 0; i < l.keyNames.length; i++) {
            l.keys[i].lines.remove(c);
            l.keys[i] = null;
        }
        for (int i = 0; i < l.rateNames.length; i++) {
            l.rates[i].lines.remove(c);
            forgetIfUnused(l.rates[i]);
            l.rates[i] = null;
        }
        c.blockedBy = null;
        c.told = null;
        changed.remove(c);
    }

    /** The lines with waiting tasks that hold the key (none when no line names it). */
    public Iterable<L> linesHolding(String key) {
        LimitKey<L> k = keys.get(key);
        return k == null ? List.of() : k.lines;
    }

    /** Moves the lines opened since the last call into {@code into}: placement looks at them. */
    public void drainOpened(List<? super L> into) {
        if (!opened.isEmpty()) {
            into.addAll(opened);
            opened.clear();
        }
    }

    /** After loading: every open limited line is looked at on the first settle (a bucket may have refilled meanwhile). */
    public void loaded(Iterable<? extends L> waiting) {
        for (L c : waiting) {
            if (c.limits != null && c.blockedBy == null) {
                opened.add(c);
            }
        }
    }

    /** Whether some line's blocker changed since the last {@link #takeChanged}. */
    public boolean anyChanged() {
        return changed.any();
    }

    /** The lines whose blocker changed since the last call, for placement to tell their heads. */
    public List<L> takeChanged() {
        return changed.take();
    }

    // ---- attempts ------------------------------------------------------------------------------

    /** An attempt is assigned (or found running when the pool loads): it holds its task's keys. */
    public void hold(AttemptRef ref) {
        List<ConcurrencyKey> held = ref.getConcurrency();
        for (int i = 0; i < held.size(); i++) {
            ConcurrencyKey ck = held.get(i);
            LimitKey<L> k = key(ck.getKey());
            k.held++;
            k.count(ck.getMax() == null ? 0 : ck.getMax(), +1);
            recheck(k.lines);
        }
    }

    /** An attempt ended (or its worker left the pool's books): its keys are free again. */
    public void free(AttemptRef ref) {
        List<ConcurrencyKey> held = ref.getConcurrency();
        for (int i = 0; i < held.size(); i++) {
            ConcurrencyKey ck = held.get(i);
            LimitKey<L> k = keys.get(ck.getKey());
            if (k == null || k.held == 0) {
                continue; // cannot happen: every hold is freed once
            }
            k.held--;
            k.count(ck.getMax() == null ? 0 : ck.getMax(), -1);
            recheck(k.lines);
        }
    }

    /** A task is assigned: its units are taken from each rate limit it names (they admit it, so all are defined). */
    public void consume(List<RateLimitUse> uses) {
        for (int i = 0; i < uses.size(); i++) {
            RateLimitUse use = uses.get(i);
            RateLimit<L> r = rates.get(use.getName());
            RateBucket b = r.bucket;
            b.setUnits(r.available(now) - use.getUnits());
            b.setAt(Instant.ofEpochMilli(Math.max(now, b.getAt().toEpochMilli())));
            recheck(r.lines);
        }
        store.putLimits(record);
    }

    // ---- time ----------------------------------------------------------------------------------

    /** Reopens the lines of each rate limit whose bucket, at the decision clock, may now admit one. */
    public void refill() {
        if (waitedOn.isEmpty()) {
            return;
        }
        for (RateLimit<L> r : new ArrayList<>(waitedOn)) {
            if (r.due <= now) {
                waitedOn.remove(r);
                r.due = Long.MAX_VALUE;
                recheck(r.lines); // a line still short waits on it again, with its new due
            }
        }
    }

    /** When a tick may reopen a line held back by a rate limit, or {@link Long#MAX_VALUE}. */
    public long nextMillis() {
        long next = Long.MAX_VALUE;
        for (RateLimit<L> r : waitedOn) {
            next = Math.min(next, r.due);
        }
        return next;
    }

    // ---- an admin's change ---------------------------------------------------------------------

    /** Sets or removes one limit as an admin asked (the input is valid); the lines it names are looked at again. */
    public void set(LimitSet e) {
        if (e.getKind() == LimitKind.CONCURRENCY_KEY) {
            LimitKey<L> k = key(e.getName());
            k.admin = e.getMax() == null ? 0 : e.getMax();
            if (k.admin > 0) {
                record.getKeys().put(k.name, k.admin);
            } else {
                record.getKeys().remove(k.name);
            }
            recheck(k.lines);
            retell(k.lines);
        } else {
            RateLimit<L> r = rate(e.getName());
            if (e.getPerSecond() == null) {
                r.bucket = null;
                record.getRates().remove(r.name);
            } else {
                int burst = e.getBurst() != null ? e.getBurst() : LimitRules.defaultBurst(e.getPerSecond());
                double units = r.bucket == null ? burst : Math.min(burst, r.available(now));
                long at = r.bucket == null ? now : Math.max(now, r.bucket.getAt().toEpochMilli());
                r.bucket = new RateBucket(e.getPerSecond(), burst, units, Instant.ofEpochMilli(at == Long.MIN_VALUE
                        ? e.getSetAt().toEpochMilli() : at));
                record.getRates().put(r.name, r.bucket);
            }
            r.due = Long.MAX_VALUE;
            waitedOn.remove(r);
            recheck(r.lines);
            retell(r.lines);
            forgetIfUnused(r);
        }
        store.putLimits(record);
    }

    // ---- words ---------------------------------------------------------------------------------

    /**
     * Why a blocked line's head waits: {@code concurrency key customer-42: 2/2 running}, {@code rate
     * limit openai: 0 of 10/s left, next in 300 ms}, or that the rate limit is not defined or its
     * burst is below what the task takes.
     */
    public String reason(Line c, Object b) {
        if (b instanceof LimitKey<?> k) {
            int own = k.limitFor(0);
            int max = c.limits.declaredFor(k);
            int limit = k.limitFor(max);
            String text = "concurrency key " + k.name + ": " + k.held + "/" + limit + " running";
            int its = max > 0 ? Math.min(max, k.admin > 0 ? k.admin : Integer.MAX_VALUE) : own;
            return limit < its && k.held > 0 ? text + " (a running task holding it allows " + limit + ")" : text;
        }
        RateLimit<?> r = (RateLimit<?>) b;
        int units = c.limits.unitsOf(r);
        if (r.bucket == null) {
            return "rate limit " + r.name + " is not defined in pool " + pool + ": the task waits until an admin defines it";
        }
        if (units > r.bucket.getBurst()) {
            return "rate limit " + r.name + " holds at most " + r.bucket.getBurst() + " units (its burst) and the task takes "
                    + units + ": it waits until an admin raises the burst";
        }
        long left = (long) Math.floor(r.available(now));
        String text = "rate limit " + r.name + ": " + left + " of " + perSecond(r.bucket.getPerSecond()) + "/s left";
        long in = Math.max(0, r.dueFor(units) - now);
        return (units > 1 ? text + ", " + units + " needed" : text) + ", next in " + Durations.words(in);
    }

    /** The words that start every reason {@link #reason} gives for this blocker: a head told them is told again only on a change of blocker. */
    public static boolean isLimitReason(String reason) {
        return reason != null && (reason.startsWith("concurrency key ") || reason.startsWith("rate limit "));
    }

    private static String perSecond(double perSecond) {
        return perSecond == Math.rint(perSecond) ? Long.toString((long) perSecond) : Double.toString(perSecond);
    }

    // ---- views ---------------------------------------------------------------------------------

    /** The pool's limits as {@code /v1/limits} and the metrics show them, at the decision clock (or {@code at}, if later). */
    public LimitsSnapshot snapshot(Instant at) {
        long time = at == null ? now : Math.max(now, at.toEpochMilli());
        List<LimitsSnapshot.KeyUse> keyUses = new ArrayList<>(keys.size());
        for (LimitKey<L> k : keys.values()) {
            if (unused(k)) {
                continue; // kept for reuse only
            }
            keyUses.add(new LimitsSnapshot.KeyUse(k.name, k.admin > 0 ? k.admin : null, k.held,
                    k.held > 0 ? k.smallestHeld() : null, heldBack(k.lines, k)));
        }
        keyUses.sort(LimitsSnapshot.KeyUse.ORDER);
        List<LimitsSnapshot.RateUse> rateUses = new ArrayList<>(rates.size());
        for (RateLimit<L> r : rates.values()) {
            RateBucket b = r.bucket;
            rateUses.add(new LimitsSnapshot.RateUse(r.name, b != null, b == null ? 0 : b.getPerSecond(),
                    b == null ? 0 : b.getBurst(), b == null ? 0 : r.available(time), heldBack(r.lines, r)));
        }
        return new LimitsSnapshot(pool, List.copyOf(keyUses), List.copyOf(rateUses));
    }

    private static long heldBack(LinkedHashSet<? extends Line> lines, Object by) {
        long n = 0;
        for (Line c : lines) {
            if (c.blockedBy == by) {
                n += c.waiting();
            }
        }
        return n;
    }

    // ---- inside --------------------------------------------------------------------------------

    /** Looks again at whether each line is blocked, after one of its limits changed. */
    private void recheck(LinkedHashSet<L> lines) {
        if (lines.isEmpty()) {
            return; // the common case of a key nobody waits for: no iterator
        }
        for (L c : lines) {
            Object before = c.blockedBy;
            Object after = blocker(c);
            if (after instanceof RateLimit<?> r) {
                waitOn(r, c);
            }
            if (after == before) {
                continue;
            }
            if (before == null) {
                c.heldBack();
            }
            c.blockedBy = after;
            if (after == null) {
                c.admitted();
                opened.add(c);
            }
            changed.add(c);
        }
    }

    /** After an admin's change, the heads of the lines it holds back are told again: the figures they were told changed. */
    private void retell(LinkedHashSet<L> lines) {
        for (L c : lines) {
            if (c.blockedBy != null) {
                c.told = RETELL;
                changed.add(c);
            }
        }
    }

    /** What {@link Line#told} is set to when its head must be told again whatever holds it back. */
    private static final Object RETELL = new Object();

    @SuppressWarnings("unchecked") // every rate limit of these books is one of rates, which hold lines of L
    private void waitOn(RateLimit<?> blocker, Line c) {
        RateLimit<L> r = (RateLimit<L>) blocker;
        long due = r.dueFor(c.limits.unitsOf(r));
        if (due != Long.MAX_VALUE) {
            r.due = Math.min(r.due, due);
            waitedOn.add(r);
        }
    }

    private LimitKey<L> key(String name) {
        LimitKey<L> k = keys.get(name);
        if (k == null) {
            if (keys.size() >= sweepAt) {
                keys.values().removeIf(Limits::unused);
                sweepAt = Math.max(KEEP_KEYS, 2 * keys.size());
            }
            k = new LimitKey<>(name);
            keys.put(name, k);
        }
        return k;
    }

    /** Keys kept at least, used or not: a key freed and held again soon is not made anew. */
    private static final int KEEP_KEYS = 16_384;
    /** When {@link #keys} reaches this size, the unused keys are forgotten (so the heap does not grow with every key ever named). */
    private int sweepAt = KEEP_KEYS;

    private static boolean unused(LimitKey<?> k) {
        return k.held == 0 && k.admin == 0 && k.lines.isEmpty();
    }

    private RateLimit<L> rate(String name) {
        RateLimit<L> r = rates.get(name);
        if (r == null) {
            r = new RateLimit<>(name);
            rates.put(name, r);
        }
        return r;
    }

    private void forgetIfUnused(RateLimit<?> r) {
        if (r.bucket == null && r.lines.isEmpty()) {
            rates.remove(r.name);
            waitedOn.remove(r);
        }
    }
}
