package io.cronoq.scheduler.policy.store;

/**
 * A waiting task's place in line: lower {@code rank} goes first (see the policy's {@code Ordering.rank}), and
 * the pool-unique {@code sequence} breaks ties, so two tasks never share a place and the order is
 * total. Compared within a class and across the classes a freed slot can serve.
 */
public record Place(long rank, long sequence) implements Comparable<Place> {

    @Override
    public int compareTo(Place other) {
        int c = Long.compare(rank, other.rank);
        return c != 0 ? c : Long.compare(sequence, other.sequence);
    }

    /** Whether this place comes before {@code other}. */
    public boolean before(Place other) {
        return compareTo(other) < 0;
    }
}
