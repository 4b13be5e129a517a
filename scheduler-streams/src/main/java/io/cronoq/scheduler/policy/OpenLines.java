package io.cronoq.scheduler.policy;

import java.util.Arrays;

/**
 * One tenant's open lines of limits in one requirement class ({@link Need#open}), kept sorted by
 * head place in an array: the first is the one a freed slot would serve. They are few per class
 * and tenant (tens), so a binary search and a short shift cost less than a tree's node and
 * rebalancing on every line that opens and closes. A line's head place is unique in its pool, so
 * a line is found by its place.
 */
final class OpenLines {

    private WaitClass[] lines = new WaitClass[4];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    /** The line whose head comes first. */
    WaitClass first() {
        return lines[0];
    }

    void add(WaitClass c) {
        int at = -(search(c) + 1);
        if (size == lines.length) {
            lines = Arrays.copyOf(lines, size * 2);
        }
        System.arraycopy(lines, at, lines, at + 1, size - at);
        lines[at] = c;
        size++;
    }

    /** Removes the line (it is here, at its head's place, which has not changed since it was added). */
    void remove(WaitClass c) {
        int at = search(c);
        System.arraycopy(lines, at + 1, lines, at, size - at - 1);
        lines[--size] = null;
    }

    private int search(WaitClass c) {
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = lines[mid].headPlace.compareTo(c.headPlace);
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }
}
