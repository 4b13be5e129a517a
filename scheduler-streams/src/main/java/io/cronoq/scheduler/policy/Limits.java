package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.LimitsRecord;
import io.cronoq.events.RateBucket;
import io.cronoq.events.RateLimitUse;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.LimitRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The concurrency keys and rate limits of one pool: what each key's running attempts hold and each
 * rate limit's bucket has left, and which lines they hold back. A line whose limits do not admit
 * its head now is <em>blocked</em> ({@link WaitClass#blockedBy}): it leaves its requirement class's
 * open lines ({@link Need#waitingLineOf}), so placement never looks at it and every other line of
 * the pool goes on (no head-of-line blocking); when the key is freed or the bucket refills, the line
 * is opened again and placement looks at it on its next settle ({@link #takeOpened}).
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
final class Limits {

    /** A concurrency key of the pool that some line names, some attempt holds, or an admin limited. */
    static final class Key {
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
        final LinkedHashSet<WaitClass> lines = new LinkedHashSet<>();

        Key(String name) {
            this.name = name;
        }

        /** The limit a task that declared {@code max} (0: none) meets now; see the class comment. */
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

        private void count(int max, int delta) {
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

    /** A rate limit of the pool: defined by an admin ({@link #bucket}), or only named by waiting tasks. */
    static final class Rate {
        final String name;
        /** Its bucket, or {@code null} while no admin defined it. */
        RateBucket bucket;
        /** Lines with waiting tasks that name it. */
        final LinkedHashSet<WaitClass> lines = new LinkedHashSet<>();
        /** When the first line it holds back may be admitted (a tick looks then); {@link Long#MAX_VALUE}: never by itself. */
        long due = Long.MAX_VALUE;

        Rate(String name) {
            this.name = name;
        }

        /** Units in the bucket at {@code now}: what it held at its last change plus the refill since, at most its burst. */
        double available(long now) {
            RateBucket b = bucket;
            long since = Math.max(0, now - b.getAt().toEpochMilli());
            return Math.min(b.getBurst(), b.getUnits() + b.getPerSecond() * since / 1000.0);
        }

        /** When the bucket holds {@code units}, or {@link Long#MAX_VALUE} when it never will (undefined, or above its burst). */
        long dueFor(int units) {
            RateBucket b = bucket;
            if (b == null || units > b.getBurst()) {
                return Long.MAX_VALUE;
            }
            long at = b.getAt().toEpochMilli();
            long due = at + Math.max(0, (long) Math.ceil((units - b.getUnits()) * 1000.0 / b.getPerSecond()));
            for (int i = 0; i < 1000 && available(due) < units; i++) {
                due++; // rounding: the first millisecond at which the bucket really holds them
            }
            return due;
        }
    }

    private final String pool;
    private final PoolStore store;
    private final LimitsRecord record;
    private final Map<String, Key> keys = new HashMap<>();
    private final Map<String, Rate> rates = new TreeMap<>();
    /** The decision clock: the latest time the policy was told, in milliseconds. */
    private long now = Long.MIN_VALUE;
    /** Lines opened since placement last looked ({@link #takeOpened}). */
    private final List<WaitClass> opened = new ArrayList<>();
    /** Lines whose blocker changed since their head was last told ({@link #takeChanged}). */
    private final LinkedHashSet<WaitClass> changed = new LinkedHashSet<>();
    /** Defined rate limits that hold lines back: a tick looks at them when their {@link Rate#due} comes. */
    private final LinkedHashSet<Rate> waitedOn = new LinkedHashSet<>();

    Limits(String pool, PoolStore store) {
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
    void clock(Instant at) {
        now = Math.max(now, at.toEpochMilli());
    }

    // ---- lines ---------------------------------------------------------------------------------

    /**
     * What holds a line's head back now (a {@link Key} at its limit, a {@link Rate} short of units or
     * undefined), or {@code null} when its limits admit it. Costs the number of limits it names.
     */
    Object blocker(WaitClass c) {
        LineLimits l = c.limits;
        for (int i = 0; i < l.keyNames.length; i++) {
            Key k = l.keys[i] != null ? l.keys[i] : keys.get(l.keyNames[i]);
            if (k != null && k.held >= k.limitFor(l.declared[i])) {
                return k;
            }
        }
        for (int i = 0; i < l.rateNames.length; i++) {
            Rate r = l.rates[i] != null ? l.rates[i] : rate(l.rateNames[i]);
            if (r.bucket == null || r.available(now) < l.units[i]) {
                return r;
            }
        }
        return null;
    }

    /** A limited line got its first waiting task: it holds its keys and rates, and is open or blocked. */
    void lineJoined(WaitClass c) {
        LineLimits l = c.limits;
        for (int i = 0; i < l.keyNames.length; i++) {
            l.keys[i] = key(l.keyNames[i]);
            l.keys[i].lines.add(c);
        }
        for (int i = 0; i < l.rateNames.length; i++) {
            l.rates[i] = rate(l.rateNames[i]);
            l.rates[i].lines.add(c);
        }
        c.blockedBy = blocker(c);
        c.told = c.blockedBy; // whoever put the task in line tells it why it waits, and looks at its line
        if (c.blockedBy == null) {
            c.need.open(c);
        } else if (c.blockedBy instanceof Rate r) {
            waitOn(r, c);
        }
    }

    /** A limited line's last waiting task left: it lets go of its keys and rates. */
    void lineEmptied(WaitClass c) {
        LineLimits l = c.limits;
        c.need.close(c);
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
    Iterable<WaitClass> linesHolding(String key) {
        Key k = keys.get(key);
        return k == null ? List.of() : k.lines;
    }

    /** Moves the lines opened since the last call into {@code into}: placement looks at them. */
    void drainOpened(List<WaitClass> into) {
        if (!opened.isEmpty()) {
            into.addAll(opened);
            opened.clear();
        }
    }

    /** After loading: every open limited line is looked at on the first settle (a bucket may have refilled meanwhile). */
    void loaded(Iterable<WaitClass> waiting) {
        for (WaitClass c : waiting) {
            if (c.limits != null && c.blockedBy == null) {
                opened.add(c);
            }
        }
    }

    /** Whether some line's blocker changed since the last {@link #takeChanged}. */
    boolean anyChanged() {
        return !changed.isEmpty();
    }

    /** The lines whose blocker changed since the last call, for placement to tell their heads. */
    List<WaitClass> takeChanged() {
        if (changed.isEmpty()) {
            return List.of();
        }
        List<WaitClass> taken = new ArrayList<>(changed);
        changed.clear();
        return taken;
    }

    // ---- attempts ------------------------------------------------------------------------------

    /** An attempt is assigned (or found running when the pool loads): it holds its task's keys. */
    void hold(AttemptRef ref) {
        List<ConcurrencyKey> held = ref.getConcurrency();
        for (int i = 0; i < held.size(); i++) {
            ConcurrencyKey ck = held.get(i);
            Key k = key(ck.getKey());
            k.held++;
            k.count(ck.getMax() == null ? 0 : ck.getMax(), +1);
            recheck(k.lines);
        }
    }

    /** An attempt ended (or its worker left the pool's books): its keys are free again. */
    void free(AttemptRef ref) {
        List<ConcurrencyKey> held = ref.getConcurrency();
        for (int i = 0; i < held.size(); i++) {
            ConcurrencyKey ck = held.get(i);
            Key k = keys.get(ck.getKey());
            if (k == null || k.held == 0) {
                continue; // cannot happen: every hold is freed once
            }
            k.held--;
            k.count(ck.getMax() == null ? 0 : ck.getMax(), -1);
            recheck(k.lines);
        }
    }

    /** A task is assigned: its units are taken from each rate limit it names (they admit it, so all are defined). */
    void consume(List<RateLimitUse> uses) {
        for (int i = 0; i < uses.size(); i++) {
            RateLimitUse use = uses.get(i);
            Rate r = rates.get(use.getName());
            RateBucket b = r.bucket;
            b.setUnits(r.available(now) - use.getUnits());
            b.setAt(Instant.ofEpochMilli(Math.max(now, b.getAt().toEpochMilli())));
            recheck(r.lines);
        }
        store.putLimits(record);
    }

    // ---- time ----------------------------------------------------------------------------------

    /** Reopens the lines of each rate limit whose bucket, at the decision clock, may now admit one. */
    void refill() {
        if (waitedOn.isEmpty()) {
            return;
        }
        for (Rate r : new ArrayList<>(waitedOn)) {
            if (r.due <= now) {
                waitedOn.remove(r);
                r.due = Long.MAX_VALUE;
                recheck(r.lines); // a line still short waits on it again, with its new due
            }
        }
    }

    /** When a tick may reopen a line held back by a rate limit, or {@link Long#MAX_VALUE}. */
    long nextMillis() {
        long next = Long.MAX_VALUE;
        for (Rate r : waitedOn) {
            next = Math.min(next, r.due);
        }
        return next;
    }

    // ---- an admin's change ---------------------------------------------------------------------

    /** Sets or removes one limit as an admin asked (the input is valid); the lines it names are looked at again. */
    void set(LimitSet e) {
        if (e.getKind() == LimitKind.CONCURRENCY_KEY) {
            Key k = key(e.getName());
            k.admin = e.getMax() == null ? 0 : e.getMax();
            if (k.admin > 0) {
                record.getKeys().put(k.name, k.admin);
            } else {
                record.getKeys().remove(k.name);
            }
            recheck(k.lines);
            retell(k.lines);
        } else {
            Rate r = rate(e.getName());
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
    String reason(WaitClass c, Object b) {
        if (b instanceof Key k) {
            int own = k.limitFor(0);
            int max = c.limits.declaredFor(k);
            int limit = k.limitFor(max);
            String text = "concurrency key " + k.name + ": " + k.held + "/" + limit + " running";
            int its = max > 0 ? Math.min(max, k.admin > 0 ? k.admin : Integer.MAX_VALUE) : own;
            return limit < its && k.held > 0 ? text + " (a running task holding it allows " + limit + ")" : text;
        }
        Rate r = (Rate) b;
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
    static boolean isLimitReason(String reason) {
        return reason != null && (reason.startsWith("concurrency key ") || reason.startsWith("rate limit "));
    }

    private static String perSecond(double perSecond) {
        return perSecond == Math.rint(perSecond) ? Long.toString((long) perSecond) : Double.toString(perSecond);
    }

    // ---- views ---------------------------------------------------------------------------------

    /** The pool's limits as {@code /v1/limits} and the metrics show them, at the decision clock (or {@code at}, if later). */
    LimitsSnapshot snapshot(Instant at) {
        long time = at == null ? now : Math.max(now, at.toEpochMilli());
        List<LimitsSnapshot.KeyUse> keyUses = new ArrayList<>(keys.size());
        for (Key k : keys.values()) {
            if (unused(k)) {
                continue; // kept for reuse only
            }
            keyUses.add(new LimitsSnapshot.KeyUse(k.name, k.admin > 0 ? k.admin : null, k.held,
                    k.held > 0 ? k.smallestHeld() : null, heldBack(k.lines, k)));
        }
        keyUses.sort(LimitsSnapshot.KeyUse.ORDER);
        List<LimitsSnapshot.RateUse> rateUses = new ArrayList<>(rates.size());
        for (Rate r : rates.values()) {
            RateBucket b = r.bucket;
            rateUses.add(new LimitsSnapshot.RateUse(r.name, b != null, b == null ? 0 : b.getPerSecond(),
                    b == null ? 0 : b.getBurst(), b == null ? 0 : r.available(time), heldBack(r.lines, r)));
        }
        return new LimitsSnapshot(pool, List.copyOf(keyUses), List.copyOf(rateUses));
    }

    private static long heldBack(LinkedHashSet<WaitClass> lines, Object by) {
        long n = 0;
        for (WaitClass c : lines) {
            if (c.blockedBy == by) {
                n += c.count;
            }
        }
        return n;
    }

    // ---- inside --------------------------------------------------------------------------------

    /** Looks again at whether each line is blocked, after one of its limits changed. */
    private void recheck(LinkedHashSet<WaitClass> lines) {
        if (lines.isEmpty()) {
            return; // the common case of a key nobody waits for: no iterator
        }
        for (WaitClass c : lines) {
            Object before = c.blockedBy;
            Object after = blocker(c);
            if (after instanceof Rate r) {
                waitOn(r, c);
            }
            if (after == before) {
                continue;
            }
            if (before == null) {
                c.need.close(c);
            }
            c.blockedBy = after;
            if (after == null) {
                c.need.open(c);
                opened.add(c);
            }
            changed.add(c);
        }
    }

    /** After an admin's change, the heads of the lines it holds back are told again: the figures they were told changed. */
    private void retell(LinkedHashSet<WaitClass> lines) {
        for (WaitClass c : lines) {
            if (c.blockedBy != null) {
                c.told = RETELL;
                changed.add(c);
            }
        }
    }

    /** What {@link WaitClass#told} is set to when its head must be told again whatever holds it back. */
    private static final Object RETELL = new Object();

    private void waitOn(Rate r, WaitClass c) {
        long due = r.dueFor(c.limits.unitsOf(r));
        if (due != Long.MAX_VALUE) {
            r.due = Math.min(r.due, due);
            waitedOn.add(r);
        }
    }

    private Key key(String name) {
        Key k = keys.get(name);
        if (k == null) {
            if (keys.size() >= sweepAt) {
                keys.values().removeIf(Limits::unused);
                sweepAt = Math.max(KEEP_KEYS, 2 * keys.size());
            }
            k = new Key(name);
            keys.put(name, k);
        }
        return k;
    }

    /** Keys kept at least, used or not: a key freed and held again soon is not made anew. */
    private static final int KEEP_KEYS = 16_384;
    /** When {@link #keys} reaches this size, the unused keys are forgotten (so the heap does not grow with every key ever named). */
    private int sweepAt = KEEP_KEYS;

    private static boolean unused(Key k) {
        return k.held == 0 && k.admin == 0 && k.lines.isEmpty();
    }

    private Rate rate(String name) {
        Rate r = rates.get(name);
        if (r == null) {
            r = new Rate(name);
            rates.put(name, r);
        }
        return r;
    }

    private void forgetIfUnused(Rate r) {
        if (r.bucket == null && r.lines.isEmpty()) {
            rates.remove(r.name);
            waitedOn.remove(r);
        }
    }
}
