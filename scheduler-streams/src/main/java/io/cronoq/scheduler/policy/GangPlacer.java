package io.cronoq.scheduler.policy;

import io.cronoq.events.GangAssignment;
import io.cronoq.events.GangPeer;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSpec;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.scheduler.policy.gang.GangFit;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.GangRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where gangs go: all members in one decision or none. A waiting gang is tried whenever slots may
 * have freed (each {@link Placement#settle}, before single tasks take what is free) and when it
 * starts waiting; the gangs are tried in line order (priority and age, as {@link Ordering#rank}
 * ranks a task; then submission). A try looks at the free profiles of the members' requirement
 * classes that the gang's tenant may take, asks {@link GangFit} for a place for every member under
 * the gang's layout (spread: one member per worker; pack: the fullest profiles first; same label:
 * one value of the key), checks the tenant's maxes can hold all members, then picks the workers and
 * assigns every member, each told the gang's workers in rank order. A gang that does not fit is told
 * why, again only when the why changes in kind (it waits for slots; the workers registered now could
 * never hold it; its tenant's max cannot hold it; its backoff).
 */
final class GangPlacer {

    /** Why a gang waits, in kind: the reason is journaled again only when its kind changes. */
    enum Why { BACKOFF, LIMIT, SLOTS, TURN, RESERVING, NEVER, MAX }

    /** The slots a gang holds while it waits for the rest: per profile, how many of its members go there. */
    static final class Reservation {
        final long sinceMillis;
        final Map<Profile, Integer> target;
        /** Per profile, what backfill last worked out ({@link GangBackfill}): its changes, slots short, and when sure. */
        final Map<Profile, long[]> sureOf = new HashMap<>();
        /**
         * When backfill last found the gang sure of its slots, as of {@link Groups#fleetChanges} {@link #lastSureFleet}:
         * while the workers stay, attempts only end or take slots with shorter leases, so it never moves later.
         */
        long lastSure = Long.MAX_VALUE;
        long lastSureFleet = -1;

        Reservation(long sinceMillis, Map<Profile, Integer> target) {
            this.sinceMillis = sinceMillis;
            this.target = target;
        }

        /** The slots held now. */
        int held() {
            int held = 0;
            for (Profile p : target.keySet()) {
                held += p.held;
            }
            return held;
        }
    }

    /** A gang that waits to be placed, with what each try needs of its members. */
    static final class WaitingGang {
        final String id;
        final int size;
        final GangPlacement layout;
        final String sameLabel;
        final long rank;
        final long sequence;
        /** Per member, the index of its requirement in {@link #requirements}. */
        final int[] classOfMember;
        /** One submission per distinct requirement (its labels, resources and tenant). */
        final List<TaskSubmitted> requirements;
        /** The members that name a concurrency key or a rate limit (usually none). */
        final List<TaskSubmitted> limited;
        /** While its limits hold it back ({@link Why#LIMIT}): when a rate limit will admit it, or {@link Long#MAX_VALUE}. */
        long limitDue = Long.MAX_VALUE;
        /** While its limits hold it back: what does, in kind ({@link Limits.AllAtOnce#what}). */
        String limitWhat;
        long readyAtMillis;
        /** From when it may reserve slots (it waited {@link TimeRules#gangReserveAfterMs}). */
        long reserveFromMillis;
        /** Whether a try reached {@link #reserveFromMillis}: from then on only a change of the pool lets it reserve. */
        boolean mayReserve;
        Reservation reservation;
        Why told;
        String reason;
        /** Whether the workers registered could never hold it, as of {@link Groups#fleetChanges} {@link #neverAt}. */
        boolean never;
        long neverAt = -1;

        WaitingGang(String id, int size, GangPlacement layout, String sameLabel, long rank, long sequence,
                    int[] classOfMember, List<TaskSubmitted> requirements, List<TaskSubmitted> limited) {
            this.id = id;
            this.size = size;
            this.layout = layout;
            this.sameLabel = sameLabel;
            this.rank = rank;
            this.sequence = sequence;
            this.classOfMember = classOfMember;
            this.requirements = requirements;
            this.limited = limited;
        }
    }

    private static final Comparator<WaitingGang> ORDER =
            Comparator.comparingLong((WaitingGang g) -> g.rank).thenComparingLong(g -> g.sequence);

    private final PoolModel m;
    private final Placement placement;
    private final Map<String, WaitingGang> waiting = new HashMap<>();
    /** Whether a gang waited its turn by share in the last tries ({@link #placeAfterTheirTurn}). */
    private boolean anyTurn;
    /** During {@link #tenantAhead}: the first two seats of one requirement class. */
    private final TenantSeats.Seat[] pick = new TenantSeats.Seat[2];
    /** What runs on the slots the reservations hold until their gangs can start. */
    private final GangBackfill backfill;

    GangPlacer(PoolModel m, Placement placement) {
        this.m = m;
        this.placement = placement;
        this.backfill = new GangBackfill(m, placement);
        for (String id : m.waitingGangIds()) {
            TaskRecord first = m.store.task(GangRules.memberId(id, 0));
            if (first != null && first.getState() == TaskState.WAITING) {
                List<TaskRecord> members = new ArrayList<>();
                for (int rank = 0; rank < first.getTask().getGang().getSize(); rank++) {
                    members.add(rank == 0 ? first : m.store.task(GangRules.memberId(id, rank)));
                }
                WaitingGang g = describe(members);
                g.reason = first.getWaitingReason();
                g.reserveFromMillis = PoolModel.queuedAt(first).toEpochMilli() + m.rules.gangReserveAfterMs();
                waiting.put(id, g);
            }
        }
    }

    boolean anyWaiting() {
        return !waiting.isEmpty();
    }

    /** The waiting gangs in the order they are tried. */
    List<WaitingGang> waiting() {
        List<WaitingGang> all = new ArrayList<>(waiting.values());
        all.sort(ORDER);
        return all;
    }

    /** The requirement classes of a waiting gang's members, in the order of its requirements. */
    private WaitClass[] linesOf(WaitingGang g) {
        WaitClass[] lines = new WaitClass[g.requirements.size()];
        for (int k = 0; k < lines.length; k++) {
            TaskSubmitted s = g.requirements.get(k);
            lines[k] = m.groups.classFor(RecordedPlaces.lineKey(s), Requirement.keyOf(s), s);
        }
        return lines;
    }

    /** Per requirement class, how many members of waiting gangs need it: what the pool's waiting counts add. */
    Map<Need, Long> waitingMembers() {
        Map<Need, Long> members = new HashMap<>();
        for (WaitingGang g : waiting.values()) {
            WaitClass[] lines = linesOf(g);
            for (int k : g.classOfMember) {
                members.merge(lines[k].need, 1L, Long::sum);
            }
        }
        return members;
    }

    /**
     * Each waiting gang's members, per requirement, as the classes view shows a line of single tasks:
     * how many, who is first (the member of lowest rank), since when, and the gang's reason.
     */
    List<ClassSnapshot> classes() {
        List<ClassSnapshot> result = new ArrayList<>();
        for (WaitingGang g : waiting()) {
            WaitClass[] lines = linesOf(g);
            TaskRecord first = m.store.task(GangRules.memberId(g.id, 0));
            Instant since = first == null ? null : PoolModel.waitingSince(first);
            for (int k = 0; k < lines.length; k++) {
                int rank = 0;
                long count = 0;
                for (int r = g.classOfMember.length - 1; r >= 0; r--) {
                    if (g.classOfMember[r] == k) {
                        rank = r;
                        count++;
                    }
                }
                WaitClass c = lines[k];
                result.add(new ClassSnapshot(c.requirement.key(), c.tenant.name(), c.requirement.labels(),
                        c.requirement.resources(), count, c.need.capacity, c.need.activeWorkers(),
                        GangRules.memberId(g.id, rank), g.requirements.get(k).getSubmittedAt(), since, g.reason,
                        null, false));
            }
        }
        return result;
    }

    /** When a waiting gang's backoff ends, it may reserve, or its reservation ends; or {@link Long#MAX_VALUE}. */
    long nextMillis() {
        long next = Long.MAX_VALUE;
        for (WaitingGang g : waiting.values()) {
            if (g.told == Why.BACKOFF) {
                next = Math.min(next, g.readyAtMillis);
            } else if (g.told == Why.LIMIT) {
                next = Math.min(next, g.limitDue);
            } else if (g.reservation != null) {
                next = Math.min(next, g.reservation.sinceMillis + m.rules.gangReservationMs());
            } else if ((g.told == Why.SLOTS || g.told == Why.TURN) && !g.mayReserve) {
                next = Math.min(next, g.reserveFromMillis);
            }
        }
        return next;
    }

    /** The gang no longer waits (it was cancelled). */
    void forget(String gangId) {
        WaitingGang g = waiting.remove(gangId);
        if (g != null) {
            release(g);
            m.waitingGangIds().remove(gangId);
            m.storeCounters();
        }
    }

    /**
     * The members of one gang start waiting as one at {@code at} (outside every line), to be placed
     * from {@code readyAt}: at once when they fit, else each is told why ({@code TaskWaiting}).
     * {@code why}, when not null, says why they wait again.
     */
    void waitAll(List<TaskRecord> members, Instant at, Instant readyAt, String why, List<Decision> out) {
        Instant now = m.heardAt();
        for (TaskRecord task : members) {
            task.setState(TaskState.WAITING);
            task.setRank(Ordering.NOT_IN_LINE);
            task.setWaitingSince(at);
            task.setQueuedAt(now != null ? now : at);
            task.setUpdatedAt(at);
        }
        WaitingGang g = describe(members);
        g.readyAtMillis = readyAt == null ? at.toEpochMilli() : readyAt.toEpochMilli();
        g.reserveFromMillis = Math.max(g.readyAtMillis, (now != null ? now : at).toEpochMilli() + m.rules.gangReserveAfterMs());
        waiting.put(g.id, g);
        m.waitingGangIds().add(g.id);
        m.storeCounters();
        if (g.readyAtMillis <= at.toEpochMilli() && place(g, members, at, out)) {
            return;
        }
        if (g.readyAtMillis > at.toEpochMilli()) {
            g.told = Why.BACKOFF;
            g.reason = (why == null ? "gang " + g.id : why) + ": it waits until " + Instant.ofEpochMilli(g.readyAtMillis);
        } else if (why != null) {
            g.reason = why + "; " + g.reason;
        }
        for (TaskRecord task : members) {
            task.setWaitingReason(g.reason);
            m.store.putTask(task);
            out.add(Decision.journal(new TaskWaiting(task.getTask().getTaskId(), g.reason), null));
        }
    }

    /** Tries every waiting gang whose backoff is over, in order; each that fits is placed whole. */
    void placeWaiting(Instant at, List<Decision> out) {
        anyTurn = false; // each gang that still waits its turn says so again
        for (WaitingGang g : waiting()) {
            if (g.readyAtMillis <= at.toEpochMilli()) {
                tryPlace(g, at, out);
            }
        }
    }

    /**
     * After single tasks took their turn ({@link Placement#settle}): the gangs that waited their turn
     * by share are tried again, so each is placed on what is left or told why it waits now.
     */
    void placeAfterTheirTurn(Instant at, List<Decision> out) {
        if (!anyTurn) {
            return;
        }
        anyTurn = false;
        for (WaitingGang g : waiting()) {
            if (g.told == Why.TURN) {
                tryPlace(g, at, out);
            }
        }
    }

    /** One try of a waiting gang: placed whole, or its held slots backfilled and its reason journaled when it changed. */
    private void tryPlace(WaitingGang g, Instant at, List<Decision> out) {
        Why before = g.told;
        String told = g.reason;
        if (place(g, null, at, out)) {
            return;
        }
        if (g.reservation != null && g.reservation.held() > 0) {
            backfill.onHeldSlots(g, at, out);
        }
        if (g.told != before || !java.util.Objects.equals(g.reason, told)) {
            TaskRecord first = m.store.task(GangRules.memberId(g.id, 0));
            first.setWaitingReason(g.reason);
            first.setUpdatedAt(at);
            m.store.putTask(first);
            out.add(Decision.journal(new TaskWaiting(first.getTask().getTaskId(), g.reason), null));
        }
    }

    /**
     * Places the gang whole if it fits now, reading its members' records only then ({@code members}
     * when the caller holds them); else sets its reason and kind and returns false.
     */
    private boolean place(WaitingGang g, List<TaskRecord> members, Instant at, List<Decision> out) {
        int classes = g.requirements.size();
        WaitClass[] lines = linesOf(g);
        Tenant tenant = lines[0].tenant;
        if (!g.limited.isEmpty() && heldByLimits(g, lines, at)) {
            return false;
        }
        if (!mayFitNow(g, lines)) {
            waitOn(g, lines, at); // the common case on a busy pool: too few free slots, no matching to try
            return false;
        }
        // The candidates now: profiles of the members' classes with a slot free for this gang (free, or held by
        // its own reservation) that the tenant may take.
        LinkedHashMap<Profile, Integer> index = new LinkedHashMap<>();
        BitSet[] allowed = new BitSet[classes];
        for (int k = 0; k < classes; k++) {
            allowed[k] = new BitSet();
            for (Profile p : g.reservation != null ? lines[k].need.profiles : lines[k].need.freeProfiles) {
                if (roomFor(g, p) > 0 && tenant.mayTake(p.labels())) {
                    allowed[k].set(index.computeIfAbsent(p, x -> index.size()));
                }
            }
        }
        List<Profile> candidates = new ArrayList<>(index.keySet());
        int[] room = new int[candidates.size()];
        for (int c = 0; c < room.length; c++) {
            Profile p = candidates.get(c);
            room[c] = g.layout == GangPlacement.SPREAD ? Math.min(p.readyCount(), roomFor(g, p)) : roomFor(g, p);
        }
        int[] found = fit(g, allowed, room, candidates).solve();
        if (found == null) {
            waitOn(g, lines, at);
            return false;
        }
        Tenant.Quota over = overMax(tenant, g, found, candidates);
        if (over != null) {
            if (g.told != Why.MAX) {
                g.told = Why.MAX;
                g.reason = needs(g, lines) + "; tenant " + tenant.name() + " may hold at most " + over.max
                        + " slots of " + (over.scope.size() == 0 ? "the pool" : over.scope.key()) + " and holds "
                        + over.inUse() + ": the gang's members do not all fit under that max";
            }
            return false;
        }
        if (g.reservation == null && waitsItsTurn(g, lines, tenant, at)) {
            return false;
        }
        if (members == null) {
            members = new ArrayList<>(g.size);
            for (int rank = 0; rank < g.size; rank++) {
                members.add(m.store.task(GangRules.memberId(g.id, rank)));
            }
        }
        Worker[] workers = pickWorkers(g, found, candidates);
        List<GangPeer> peers = new ArrayList<>(g.size);
        for (Worker w : workers) {
            peers.add(new GangPeer(w.id(), w.record.getAddress()));
        }
        release(g); // its held slots are among those it now takes
        waiting.remove(g.id);
        m.waitingGangIds().remove(g.id);
        m.storeCounters();
        for (int rank = 0; rank < g.size; rank++) {
            GangAssignment gang = new GangAssignment(g.id, g.size, rank, peers);
            placement.assignTo(members.get(rank), candidates.get(found[rank]), workers[rank], at,
                    rank == 0 ? "gang " + g.id + ": all " + g.size + " members assigned at once" : null, gang, out);
        }
        return true;
    }

    /**
     * Whether the concurrency keys and rate limits its members name cannot admit them all at once now
     * ({@link Limits#heldBack}): then it holds no slot and waits for them, told why.
     */
    private boolean heldByLimits(WaitingGang g, WaitClass[] lines, Instant at) {
        m.limits.clock(at);
        Limits.AllAtOnce held = m.limits.heldBack(g.limited);
        if (held == null) {
            return false;
        }
        release(g); // slots held while a limit holds the gang back would idle for nothing
        g.limitDue = held.due();
        if (g.told != Why.LIMIT || !held.what().equals(g.limitWhat)) {
            g.told = Why.LIMIT;
            g.limitWhat = held.what();
            g.reason = needs(g, lines) + "; " + held.reason();
        }
        return true;
    }

    /**
     * Fair share applies to a gang as a whole: one that fits now still waits while a tenant with a
     * smaller dominant share (over its weight; equal shares by name, as single tasks are served) has
     * a line in one of the members' requirement classes that a free slot could serve, so those slots go
     * to that tenant first and the gang takes its turn when its tenant's share comes first. Its
     * reservation is what keeps this from starving it: once it has waited {@link
     * TimeRules#gangReserveAfterMs} it reserves as a gang that does not fit does, and a reserving gang
     * no longer waits its turn. Returns whether it waits.
     */
    private boolean waitsItsTurn(WaitingGang g, WaitClass[] lines, Tenant tenant, Instant at) {
        Tenant ahead = tenantAhead(lines, tenant);
        if (ahead == null) {
            return false;
        }
        if (at.toEpochMilli() >= g.reserveFromMillis) {
            reserve(g, lines, at);
            if (g.reservation != null) {
                return false; // it reserved now: what it holds and what is free are its, share or not
            }
        }
        anyTurn = true;
        if (g.told != Why.TURN) {
            g.told = Why.TURN;
            g.reason = needs(g, lines) + "; it fits, but tenant " + ahead.name() + " has a smaller share and waits "
                    + "for these slots: the gang takes its turn by its tenant's share, and reserves its slots from "
                    + Instant.ofEpochMilli(g.reserveFromMillis);
        }
        return true;
    }

    /** Another tenant with a smaller share than {@code tenant}'s whose line in one of these classes a free slot can serve, or {@code null}. */
    private Tenant tenantAhead(WaitClass[] lines, Tenant tenant) {
        double share = m.tenants.share(tenant); // worked out now: a tenant with no line of its own is not kept current
        for (int k = 0; k < lines.length; k++) {
            Need n = lines[k].need;
            boolean seen = false;
            for (int j = 0; j < k; j++) {
                seen |= lines[j].need == n;
            }
            if (seen || n.freeProfiles.isEmpty()) {
                continue;
            }
            int found = n.seats.firstTwo(pick);
            for (int i = 0; i < found; i++) {
                Tenant t = pick[i].tenant;
                if (t != tenant && (t.rankedShare() < share
                        || t.rankedShare() == share && t.name().compareTo(tenant.name()) < 0)) {
                    return t;
                }
            }
        }
        return null;
    }

    /**
     * A bound that costs no matching: whether the slots the gang may take now (free ones of its
     * classes' free profiles, and what its own reservation holds) could number its members.
     */
    private boolean mayFitNow(WaitingGang g, WaitClass[] lines) {
        long room = 0;
        if (g.reservation != null) {
            for (Profile p : g.reservation.target.keySet()) {
                room += p.removed ? 0 : p.held;
            }
        }
        for (int k = 0; k < lines.length && room < g.size; k++) {
            boolean seen = false;
            for (int j = 0; j < k; j++) {
                seen |= lines[j].need == lines[k].need;
            }
            if (!seen) {
                for (Profile p : lines[k].need.freeProfiles) {
                    room += p.free();
                }
            }
        }
        return room >= g.size;
    }

    /**
     * The gang does not fit now: it waits because the workers registered now could never hold it
     * (looked at again only when capacity or links change), or for its slots, reserving them once it
     * may ({@link #reserve}).
     */
    private void waitOn(WaitingGang g, WaitClass[] lines, Instant at) {
        if (g.neverAt != m.groups.fleetChanges) {
            g.never = everFit(g, lines, null) == null;
            g.neverAt = m.groups.fleetChanges;
        }
        if (g.never) {
            release(g);
            if (g.told != Why.NEVER) {
                g.told = Why.NEVER;
                g.reason = reason(g, lines);
            }
            return;
        }
        reserve(g, lines, at);
    }

    private static GangFit fit(WaitingGang g, BitSet[] allowed, int[] room, List<Profile> candidates) {
        GangFit fit = new GangFit(g.classOfMember, allowed, room);
        if (g.layout == GangPlacement.PACK) {
            fit = fit.packed();
        }
        if (g.sameLabel != null) {
            String[] values = new String[candidates.size()];
            for (int c = 0; c < values.length; c++) {
                values[c] = candidates.get(c).labels().asMap().get(g.sameLabel);
            }
            fit = fit.sameLabel(values);
        }
        return fit;
    }

    /**
     * Where the gang would go were every slot of the workers registered now free (per member, its
     * profile in {@code into}), or {@code null} when they could never hold it; {@code into} null only
     * asks. With {@code into}, profiles another gang's reservation holds are left out.
     */
    private int[] everFit(WaitingGang g, WaitClass[] lines, List<Profile> into) {
        LinkedHashMap<Profile, Integer> index = new LinkedHashMap<>();
        BitSet[] allowed = new BitSet[lines.length];
        for (int k = 0; k < lines.length; k++) {
            allowed[k] = new BitSet();
            for (Profile p : lines[k].need.profiles) {
                if (into == null || p.reservedFor == null || p.reservedFor.equals(g.id)) {
                    allowed[k].set(index.computeIfAbsent(p, x -> index.size()));
                }
            }
        }
        List<Profile> all = new ArrayList<>(index.keySet());
        int[] room = new int[all.size()];
        for (int c = 0; c < room.length; c++) {
            Profile p = all.get(c);
            room[c] = g.layout == GangPlacement.SPREAD ? p.activeWorkers : p.capacity;
        }
        int[] found = fit(g, allowed, room, all).solve();
        if (into != null) {
            into.addAll(all);
        }
        return found;
    }

    /** Slots of the profile this gang may take now: free ones, and those its own reservation holds. */
    private static int roomFor(WaitingGang g, Profile p) {
        return p.free() + (g.id.equals(p.reservedFor) ? p.held : 0);
    }

    /**
     * A gang that could fit but does not now: once it waited {@link TimeRules#gangReserveAfterMs} it
     * reserves the profiles where it would go were they free (none another gang reserves; the first
     * in line reserves first), and from then every idle slot there, up to what the gang needs of each,
     * is held for it; after {@link TimeRules#gangReservationMs} the reservation ends and the gang
     * waits that long again before it reserves anew.
     */
    private void reserve(WaitingGang g, WaitClass[] lines, Instant at) {
        long now = at.toEpochMilli();
        boolean lostAProfile = g.reservation != null && g.reservation.target.keySet().stream().anyMatch(p -> p.removed);
        if (lostAProfile || g.reservation != null && now >= g.reservation.sinceMillis + m.rules.gangReservationMs()) {
            int held = g.reservation.held();
            release(g); // timed out, or its workers changed: what it would take is looked at again
            if (!lostAProfile) {
                g.reserveFromMillis = now + m.rules.gangReserveAfterMs();
                g.mayReserve = false;
                g.told = Why.SLOTS;
                g.reason = needs(g, lines) + "; its reservation ended after " + Durations.words(m.rules.gangReservationMs())
                        + " with " + held + " of " + g.size + " slots held: they go back to single tasks, and it reserves"
                        + " again from " + Instant.ofEpochMilli(g.reserveFromMillis);
                return;
            }
        }
        if (g.reservation == null && now >= g.reserveFromMillis) {
            g.mayReserve = true;
            List<Profile> profiles = new ArrayList<>();
            int[] target = everFit(g, lines, profiles);
            if (target != null) {
                Map<Profile, Integer> counts = new LinkedHashMap<>();
                for (int c : target) {
                    counts.merge(profiles.get(c), 1, Integer::sum);
                }
                g.reservation = new Reservation(now, counts);
            }
        }
        if (g.reservation == null) {
            if (g.told != Why.SLOTS) {
                g.told = Why.SLOTS;
                g.reason = reason(g, lines);
            }
            return;
        }
        for (Map.Entry<Profile, Integer> e : g.reservation.target.entrySet()) {
            Profile p = e.getKey();
            int hold = Math.max(0, Math.min(e.getValue(), p.idle()));
            if (p.held != hold || !g.id.equals(p.reservedFor)) {
                m.groups.hold(p, g.id, hold);
            }
        }
        if (g.told != Why.RESERVING) {
            g.told = Why.RESERVING;
            g.reason = needs(g, lines) + "; reserving since " + Instant.ofEpochMilli(g.reservation.sinceMillis) + " ("
                    + g.reservation.held() + " of " + g.size + " held): slots that free where it goes are kept for it";
        }
    }

    /** Its reservation, if any, ends: the slots it held go back to single tasks. */
    private void release(WaitingGang g) {
        if (g.reservation == null) {
            return;
        }
        for (Profile p : g.reservation.target.keySet()) {
            if (!p.removed && g.id.equals(p.reservedFor)) {
                m.groups.hold(p, null, 0);
                placement.offer(p); // its lines get the slots on the next settle
            }
        }
        g.reservation = null;
        backfill.forget(); // read again for the next reservation: a task id may come back with another timeout
    }

    /** The first max of the tenant that cannot hold the members where they would go, or {@code null}. */
    private static Tenant.Quota overMax(Tenant tenant, WaitingGang g, int[] found, List<Profile> candidates) {
        for (Tenant.Quota q : tenant.quotas()) {
            if (!q.bounded()) {
                continue;
            }
            int within = 0;
            for (int c : found) {
                if (candidates.get(c).labels().includes(q.scope)) {
                    within++;
                }
            }
            if (within > 0 && q.inUse() + within > q.max) {
                return q;
            }
        }
        return null;
    }

    /**
     * The worker of each member, within the profile the fit gave it: spread takes distinct workers in
     * placement order; pack fills the workers with the most free slots first; otherwise the members
     * go round the profile's free workers in placement order, as single tasks would.
     */
    private static Worker[] pickWorkers(WaitingGang g, int[] found, List<Profile> candidates) {
        Worker[] chosen = new Worker[g.size];
        Map<Integer, List<Integer>> membersOf = new LinkedHashMap<>();
        for (int rank = 0; rank < g.size; rank++) {
            membersOf.computeIfAbsent(found[rank], c -> new ArrayList<>()).add(rank);
        }
        for (Map.Entry<Integer, List<Integer>> e : membersOf.entrySet()) {
            List<Worker> ready = candidates.get(e.getKey()).readyWorkers();
            if (g.layout == GangPlacement.PACK) {
                ready.sort(Comparator.comparingInt((Worker w) -> w.slots() - w.busy()).reversed()); // stable
            }
            int[] left = new int[ready.size()];
            for (int i = 0; i < left.length; i++) {
                left[i] = g.layout == GangPlacement.SPREAD ? 1 : ready.get(i).slots() - ready.get(i).busy();
            }
            int next = 0;
            for (int rank : e.getValue()) {
                while (left[next] == 0) {
                    next = (next + 1) % left.length;
                }
                chosen[rank] = ready.get(next);
                left[next]--;
                if (g.layout != GangPlacement.PACK) {
                    next = (next + 1) % left.length; // round the workers; pack stays on one until it is full
                }
            }
        }
        return chosen;
    }

    /** What the gang needs, in words: "gang train-7 needs 8 slots on workers with gpu=a100, one per worker". */
    private static String needs(WaitingGang g, WaitClass[] lines) {
        StringBuilder s = new StringBuilder("gang ").append(g.id).append(" needs ").append(g.size)
                .append(g.size == 1 ? " slot" : " slots");
        TaskSubmitted first = g.requirements.get(0);
        if (lines.length == 1 && !first.getLabels().isEmpty()) {
            s.append(" on workers with ").append(LabelSet.key(first.getLabels()));
        } else if (lines.length > 1) {
            s.append(" on workers its ").append(lines.length).append(" kinds of member may use");
        }
        if (g.layout == GangPlacement.SPREAD) {
            s.append(", one per worker (spread)");
        } else if (g.layout == GangPlacement.PACK) {
            s.append(", on as few workers as possible (pack)");
        }
        if (g.sameLabel != null) {
            s.append(", all on workers with one value of ").append(g.sameLabel);
        }
        return s.toString();
    }

    private static String reason(WaitingGang g, WaitClass[] lines) {
        String needs = needs(g, lines);
        if (g.told == Why.NEVER) {
            int workers = 0;
            long slots = 0;
            java.util.Set<Profile> all = new java.util.LinkedHashSet<>();
            for (WaitClass c : lines) {
                all.addAll(c.need.profiles);
            }
            for (Profile p : all) {
                workers += p.activeWorkers;
                slots += p.capacity;
            }
            return needs + "; the workers registered now could never hold it all (" + workers + " such "
                    + (workers == 1 ? "worker" : "workers") + ", " + slots + " slots): it waits until enough register";
        }
        int workers = 0;
        long free = 0;
        java.util.Set<Profile> all = new java.util.LinkedHashSet<>();
        for (WaitClass c : lines) {
            all.addAll(c.need.freeProfiles);
        }
        for (Profile p : all) {
            workers += p.readyCount();
            free += p.free();
        }
        return needs + "; " + workers + " such " + (workers == 1 ? "worker has" : "workers have") + " a free slot ("
                + free + " free " + (free == 1 ? "slot" : "slots") + "): it starts when all its members fit at once";
    }

    /** What each try needs of a gang, from its members' records. */
    private WaitingGang describe(List<TaskRecord> members) {
        TaskSubmitted first = members.get(0).getTask();
        GangSpec spec = first.getGang();
        Map<String, Integer> byRequirement = new LinkedHashMap<>();
        List<TaskSubmitted> requirements = new ArrayList<>();
        List<TaskSubmitted> limited = List.of();
        int[] classOfMember = new int[members.size()];
        for (int rank = 0; rank < members.size(); rank++) {
            TaskSubmitted s = members.get(rank).getTask();
            if (!s.getConcurrency().isEmpty() || !s.getRateLimits().isEmpty()) {
                limited = limited.isEmpty() ? new ArrayList<>() : limited;
                limited.add(s);
            }
            String key = RecordedPlaces.lineKey(s);
            Integer k = byRequirement.get(key);
            if (k == null) {
                k = requirements.size();
                byRequirement.put(key, k);
                requirements.add(s);
            }
            classOfMember[rank] = k;
        }
        return new WaitingGang(spec.getGangId(), spec.getSize(), spec.getPlacement(), spec.getSameLabel(),
                Ordering.rank(first, m.rules, first.getSubmittedAt()), members.get(0).getSequence(), classOfMember,
                requirements, limited);
    }
}
