package io.cronoq.agent;

import io.cronoq.events.GangAssignment;
import io.cronoq.events.GangPeer;
import java.util.List;
import java.util.Objects;

/**
 * The gang an attempt belongs to, as its assignment told it: every member was assigned in the same
 * decision, and {@code peers} and {@code workers} list them in rank order, so rank 0 can be the
 * rendezvous of the others.
 *
 * @param id      the gang's id
 * @param size    how many members it has
 * @param rank    this member's index, 0 to {@code size - 1}
 * @param peers   each member's address as its worker advertises it (its worker id when it advertises none)
 * @param workers each member's worker id
 */
public record Gang(String id, int size, int rank, List<String> peers, List<String> workers) {

    /**
     * Immutable (the lists are copied) and whole: a rank within the size, one peer and one worker per member.
     *
     * @throws IllegalArgumentException when the rank, size and lists do not agree
     */
    public Gang {
        Objects.requireNonNull(id, "id");
        peers = List.copyOf(peers);
        workers = List.copyOf(workers);
        if (size < 1 || rank < 0 || rank >= size || peers.size() != size || workers.size() != size) {
            throw new IllegalArgumentException("gang " + id + " is not whole: rank " + rank + " of size " + size
                    + " with " + peers.size() + " peers and " + workers.size() + " workers");
        }
    }

    /** The gang of an assignment, or {@code null} for a task of its own. */
    static Gang of(GangAssignment gang) {
        if (gang == null) {
            return null;
        }
        List<String> peers = gang.getPeers().stream()
                .map(p -> p.getAddress() != null ? p.getAddress() : p.getWorkerId()).toList();
        List<String> workers = gang.getPeers().stream().map(GangPeer::getWorkerId).toList();
        return new Gang(gang.getGangId(), gang.getSize(), gang.getRank(), peers, workers);
    }
}
