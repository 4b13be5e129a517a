package io.cronoq.agent;

import io.cronoq.events.GangAssignment;
import io.cronoq.events.GangPeer;
import java.util.List;

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

    /** Immutable: the lists are copied. */
    public Gang {
        peers = List.copyOf(peers);
        workers = List.copyOf(workers);
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
