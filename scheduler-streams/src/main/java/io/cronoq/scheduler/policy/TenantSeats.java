package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.common.Peak;
import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.sharing.Tenants;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One requirement class's tenants ({@link Need}): a {@link Seat} per tenant with a line of the
 * class, and three views of the seats whose lines may take a slot now, which placement reads on
 * every freed slot: all of them by dominant share (a binary heap), those of tenants below a
 * guarantee, and those of tenants held to a max.
 *
 * <p>Why a heap per class rather than one ranking of the pool's tenants: a freed slot asks for the
 * first tenants <em>it can serve</em>, and the tenants furthest below their share are, by
 * construction, those whose lines no free slot serves (what a slot could serve was placed already),
 * so walking one ranking passes over them on every decision, a number that grows with the
 * tenants. Here the first two servable tenants are at the top of the class's heap, whatever the
 * number of tenants. The heap orders each seat by the share its tenant had when the seat last
 * moved ({@link Seat#key}), never more than the share it has now: a tenant that frees a slot moves
 * up at once in each class where it waits (its share fell), one that takes a slot is left where it
 * is (its share rose) and sinks when a search meets it, so a decision's own assignment costs no
 * sift anywhere. Memory is one seat per tenant and class it has a line in. Not thread-safe: one
 * pool, one thread.
 */
final class TenantSeats {

    /** One tenant's lines of the class: where a freed slot of the class finds the tenant's next task. */
    static final class Seat {
        final Tenant tenant;
        /** Its line naming no limit, while the class index knows it (waiting tasks or not). */
        WaitClass plain;
        /** Its lines of limits that have waiting tasks and whose limits admit their head, by head place. */
        OpenLines open;
        int heapAt = -1;
        /** Its tenant's share when it last moved in the heap: at most the share now. */
        double key;
        int deficitAt = -1;
        int cappedAt = -1;

        Seat(Tenant tenant) {
            this.tenant = tenant;
        }

        /**
         * The line a freed slot would serve first: of its line naming no limit (if it has waiting
         * tasks) and its first open line of limits, the one whose head comes first; or {@code null}.
         */
        WaitClass line() {
            WaitClass c = plain != null && plain.count > 0 ? plain : null;
            if (open == null || open.isEmpty()) {
                return c;
            }
            WaitClass first = open.first();
            return c == null || first.headPlace.before(c.headPlace) ? first : c;
        }

        /** Whether a line of it may take a slot now. */
        boolean active() {
            return plain != null && plain.count > 0 || open != null && !open.isEmpty();
        }

        /**
         * Whether a free slot of the class can serve its line (asked only of a class with a free
         * slot): it has one, and no max it is held to closes every free profile to it.
         */
        boolean servable() {
            WaitClass c = line();
            return c != null && (!tenant.atAnyMax() || c.servable());
        }
    }

    private final Tenants tenants;
    private Map<Tenant, Seat> seats = new HashMap<>(4);
    private final Peak seatsPeak = new Peak();
    /** The active seats, a binary min-heap by {@link Tenants#byShare} of their tenants. */
    private Seat[] heap = new Seat[2];
    private int heapSize;
    /** {@link Tenants#shareEpoch} when the heap was last ordered. */
    private long epoch;
    /** Active seats of tenants below a guarantee now (no order: placement weighs them by head place). */
    private final Bag deficit = new Bag(true);
    /** Active seats of tenants held to a max now. */
    private final Bag capped = new Bag(false);
    /** Scratch stack of the heap search. */
    private int[] stack = new int[16];

    TenantSeats(Tenants tenants) {
        this.tenants = tenants;
        this.epoch = tenants.shareEpoch();
    }

    /** The tenant's seat, or {@code null} when it has no line here. */
    Seat of(Tenant t) {
        return seats.get(t);
    }

    /** Whether any tenant has a line here that the class index knows. */
    boolean isEmpty() {
        return seats.isEmpty();
    }

    private Seat seat(Tenant t) {
        Seat s = seats.get(t);
        if (s == null) {
            s = new Seat(t);
            seats.put(t, s);
            seatsPeak.grew(seats.size());
        }
        return s;
    }

    /** A tenant's line naming no limit became known. */
    void addPlain(WaitClass c) {
        Seat s = seat(c.tenant);
        s.plain = c;
        c.seat = s;
        refresh(s);
    }

    /** A tenant's line naming no limit is forgotten (empty for long, or its tenant forgotten). */
    void removePlain(WaitClass c) {
        Seat s = seats.get(c.tenant);
        if (s != null && s.plain == c) {
            s.plain = null;
            c.seat = null;
            refresh(s);
        }
    }

    /** A line's count went from none to some, or back: its tenant's seat may start or stop taking slots. */
    void counted(WaitClass c) {
        Seat s = seats.get(c.tenant);
        if (s != null) {
            refresh(s);
        }
    }

    /** A line of limits may take a slot now (it has waiting tasks and its limits admit its head). */
    void open(WaitClass c) {
        Seat s = seat(c.tenant);
        if (s.open == null) {
            s.open = new OpenLines();
        }
        s.open.add(c);
        refresh(s);
    }

    /** A line of limits no longer may (see {@link #open}). */
    void close(WaitClass c) {
        Seat s = seats.get(c.tenant);
        s.open.remove(c);
        refresh(s);
    }

    /** The tenant's share fell: its seat moves up in the heap. */
    void shareFell(Tenant t) {
        Seat s = seats.get(t);
        if (s != null) {
            fell(s);
        }
    }

    /** {@link #shareFell}, for a seat at hand. */
    void fell(Seat s) {
        if (s.heapAt >= 0 && epoch == tenants.shareEpoch()) {
            s.key = s.tenant.rankedShare();
            siftUp(s.heapAt);
        }
    }

    /** The tenant went below a guarantee or back, or reached a max or left it. */
    void standingChanged(Tenant t) {
        Seat s = seats.get(t);
        if (s != null) {
            refresh(s);
        }
    }

    /** Puts the seat in the views its lines and its tenant's standing call for, and forgets it when it has no line. */
    private void refresh(Seat s) {
        boolean active = s.active();
        if (active != s.heapAt >= 0) {
            if (active) {
                insert(s);
            } else {
                removeFromHeap(s);
            }
        }
        deficit.put(s, active && s.tenant.belowGuarantee());
        capped.put(s, active && s.tenant.atAnyMax());
        if (!active && s.plain == null) {
            seats.remove(s.tenant);
            if (seatsPeak.shrinkNow(seats.size())) {
                seats = new HashMap<>(seats);
            }
        }
    }

    /** Active seats of tenants below a guarantee now. */
    int deficitCount() {
        return deficit.size;
    }

    Seat deficitSeat(int i) {
        return deficit.items[i];
    }

    /** Active seats of tenants held to a max now. */
    int cappedCount() {
        return capped.size;
    }

    Seat cappedSeat(int i) {
        return capped.items[i];
    }

    /**
     * The seats of the first two tenants by share ({@link Tenants#byShare}) whose line a free slot
     * can serve ({@link Seat#servable}), into {@code pick}, first first; returns how many (0 to 2).
     * A subtree of the heap is left as soon as its top comes after the second found: its seats all do.
     */
    int firstTwo(Seat[] pick) {
        ordered();
        pick[0] = null;
        pick[1] = null;
        if (heapSize == 0) {
            return 0;
        }
        int found = 0;
        int top = 0;
        stack[top++] = 0;
        while (top > 0) {
            int i = stack[--top];
            Seat s = heap[i];
            if (s.key < s.tenant.rankedShare()) {
                // Its share rose since it last moved: it sinks to its place in this subtree, which the
                // search has not entered yet, and the seat that comes up to i is looked at instead.
                s.key = s.tenant.rankedShare();
                siftDown(i);
                stack[top++] = i;
                continue;
            }
            if (found == 2 && Tenants.byShare(s.tenant, pick[1].tenant) >= 0) {
                continue; // every seat below has a share at least as large
            }
            if (s.servable()) {
                if (found == 0) {
                    pick[0] = s;
                    found = 1;
                } else if (Tenants.byShare(s.tenant, pick[0].tenant) < 0) {
                    pick[1] = pick[0];
                    pick[0] = s;
                    found = 2;
                } else if (found == 1 || Tenants.byShare(s.tenant, pick[1].tenant) < 0) {
                    pick[1] = s;
                    found = 2;
                }
            }
            int child = 2 * i + 1;
            if (top + 2 > stack.length) {
                stack = Arrays.copyOf(stack, stack.length * 2);
            }
            if (child + 1 < heapSize) {
                stack[top++] = child + 1;
            }
            if (child < heapSize) {
                stack[top++] = child;
            }
        }
        return found;
    }

    // ---- the heap -----------------------------------------------------------------------------

    /** Orders the heap again when every share changed since it was last ordered. */
    private void ordered() {
        long now = tenants.shareEpoch();
        if (epoch != now) {
            epoch = now;
            for (int i = 0; i < heapSize; i++) {
                heap[i].key = heap[i].tenant.rankedShare();
            }
            for (int i = heapSize / 2 - 1; i >= 0; i--) {
                siftDown(i);
            }
        }
    }

    private void insert(Seat s) {
        ordered();
        if (heapSize == heap.length) {
            heap = Arrays.copyOf(heap, heapSize * 2);
        }
        heap[heapSize] = s;
        s.key = s.tenant.rankedShare();
        s.heapAt = heapSize++;
        siftUp(s.heapAt);
    }

    private void removeFromHeap(Seat s) {
        ordered();
        int i = s.heapAt;
        Seat last = heap[--heapSize];
        heap[heapSize] = null;
        s.heapAt = -1;
        if (last != s) {
            heap[i] = last;
            last.heapAt = i;
            siftUp(i);
            siftDown(last.heapAt);
        }
        if (heap.length > 64 && heapSize < heap.length >>> 3) {
            heap = Arrays.copyOf(heap, heap.length >>> 2); // many tenants waited here once; few do now
        }
    }

    /** The heap's order: the share each seat last moved with, then the tenant's name. */
    private static int order(Seat a, Seat b) {
        if (a == b) {
            return 0;
        }
        int c = Double.compare(a.key, b.key);
        return c != 0 ? c : a.tenant.name().compareTo(b.tenant.name());
    }

    private void siftUp(int i) {
        Seat s = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Seat p = heap[parent];
            if (order(s, p) >= 0) {
                break;
            }
            heap[i] = p;
            p.heapAt = i;
            i = parent;
        }
        heap[i] = s;
        s.heapAt = i;
    }

    private void siftDown(int i) {
        Seat s = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= heapSize) {
                break;
            }
            if (child + 1 < heapSize && order(heap[child + 1], heap[child]) < 0) {
                child++;
            }
            Seat c = heap[child];
            if (order(c, s) >= 0) {
                break;
            }
            heap[i] = c;
            c.heapAt = i;
            i = child;
        }
        heap[i] = s;
        s.heapAt = i;
    }

    /** An unordered set of seats with O(1) add and remove: each seat keeps its index in it. */
    private static final class Bag {
        private final boolean deficitKind;
        Seat[] items = new Seat[2];
        int size;

        Bag(boolean deficitKind) {
            this.deficitKind = deficitKind;
        }

        private int at(Seat s) {
            return deficitKind ? s.deficitAt : s.cappedAt;
        }

        private void at(Seat s, int i) {
            if (deficitKind) {
                s.deficitAt = i;
            } else {
                s.cappedAt = i;
            }
        }

        void put(Seat s, boolean in) {
            int i = at(s);
            if (in == i >= 0) {
                return;
            }
            if (in) {
                if (size == items.length) {
                    items = Arrays.copyOf(items, size * 2);
                }
                items[size] = s;
                at(s, size++);
            } else {
                Seat last = items[--size];
                items[size] = null;
                if (last != s) {
                    items[i] = last;
                    at(last, i);
                }
                at(s, -1);
            }
        }
    }
}
