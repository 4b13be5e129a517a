package io.cronoq.scheduler.policy.gang;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds room for every member of a gang at once, or says there is none: plain arithmetic over
 * candidates (the places a member may go, each with how many members it can take now), knowing
 * nothing of workers or Kafka. Each member may use only the candidates its requirement allows; a
 * candidate takes at most its room; with a same-label key all members go to candidates that share
 * one value of it (candidates without it are left out). It is a bipartite matching with capacities
 * (Kuhn's augmenting paths): a member that finds no room directly moves earlier members to other
 * candidates they may use, so a gang is found whenever one exists, whatever order the members
 * come in. Candidates are tried in the order given (the caller's placement order); with
 * {@link #packed} the fullest first, so the members take as few candidates as they can.
 *
 * <p>Cost: O(members × candidates) when members share their candidates (the usual gang: one
 * template N times); augmenting paths only when members differ.
 */
public final class GangFit {

    private final int members;
    private final int[] classOfMember;
    private final BitSet[] allowed;
    private final int[] room;
    private final String[] sameValue;
    private boolean packed;

    /**
     * @param classOfMember for each member (in rank order), the index of its requirement in {@code allowed}
     * @param allowed       per requirement, the candidates it may use
     * @param room          per candidate, how many members it can take
     */
    public GangFit(int[] classOfMember, BitSet[] allowed, int[] room) {
        this.members = classOfMember.length;
        this.classOfMember = classOfMember;
        this.allowed = allowed;
        this.room = room;
        this.sameValue = null;
    }

    private GangFit(GangFit base, String[] sameValue, boolean packed) {
        this.members = base.members;
        this.classOfMember = base.classOfMember;
        this.allowed = base.allowed;
        this.room = base.room;
        this.sameValue = sameValue;
        this.packed = packed;
    }

    /** The same fit with every member on candidates of one value of a label ({@code null}: candidate lacks it). */
    public GangFit sameLabel(String[] valueOfCandidate) {
        return new GangFit(this, valueOfCandidate, packed);
    }

    /** The same fit trying the candidates with the most room first, so the members take as few as they can. */
    public GangFit packed() {
        return new GangFit(this, sameValue, true);
    }

    /**
     * The candidate of each member (in rank order), or {@code null} when the members do not all fit.
     * With a same-label key, the values are tried by their total room, largest first (ties by value).
     */
    public int[] solve() {
        if (sameValue == null) {
            return solveWithin(allCandidates());
        }
        Map<String, List<Integer>> byValue = new TreeMap<>();
        for (int c = 0; c < room.length; c++) {
            if (sameValue[c] != null && room[c] > 0) {
                byValue.computeIfAbsent(sameValue[c], v -> new ArrayList<>()).add(c);
            }
        }
        List<List<Integer>> groups = new ArrayList<>(byValue.values());
        groups.sort(Comparator.comparingInt(this::roomOf).reversed()); // stable: equal room keeps value order
        for (List<Integer> group : groups) {
            if (roomOf(group) < members) {
                break; // neither this value nor any after it has room for all
            }
            int[] found = solveWithin(group.stream().mapToInt(Integer::intValue).toArray());
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private int roomOf(List<Integer> candidates) {
        long sum = 0;
        for (int c : candidates) {
            sum += room[c];
        }
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }

    private int[] allCandidates() {
        int[] all = new int[room.length];
        for (int c = 0; c < all.length; c++) {
            all[c] = c;
        }
        return all;
    }

    private int[] solveWithin(int[] candidates) {
        int[] order = candidates;
        if (packed) {
            Integer[] boxed = Arrays.stream(candidates).boxed().toArray(Integer[]::new);
            Arrays.sort(boxed, Comparator.comparingInt((Integer c) -> room[c]).reversed()); // stable
            order = Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
        }
        long total = 0;
        for (int c : order) {
            total += room[c];
        }
        if (total < members) {
            return null;
        }
        Matching matching = new Matching(order);
        for (int member = 0; member < members; member++) {
            if (!matching.placeDirectly(member) && !matching.augment(member)) {
                return null;
            }
        }
        return matching.candidateOf;
    }

    /** One search: who sits where, and the augmenting paths that move earlier members aside. */
    private final class Matching {
        final int[] order;
        final int[] candidateOf = new int[members];
        final int[] used = new int[room.length];
        /** Per candidate, the members on it (only kept for augmenting). */
        final List<List<Integer>> on = new ArrayList<>(room.length);
        /** Per requirement, the first position in {@link #order} that may still have room (direct placement). */
        final int[] cursor;
        boolean[] visited;

        Matching(int[] order) {
            this.order = order;
            this.cursor = new int[allowed.length];
            for (int c = 0; c < room.length; c++) {
                on.add(null);
            }
        }

        /** The first candidate in order the member may use that has room, without moving anyone. */
        boolean placeDirectly(int member) {
            BitSet may = allowed[classOfMember[member]];
            int k = cursor[classOfMember[member]];
            for (; k < order.length; k++) {
                int c = order[k];
                if (may.get(c) && used[c] < room[c]) {
                    cursor[classOfMember[member]] = k;
                    sit(member, c);
                    return true;
                }
            }
            cursor[classOfMember[member]] = k;
            return false;
        }

        boolean augment(int member) {
            visited = new boolean[room.length];
            return tryPlace(member);
        }

        private boolean tryPlace(int member) {
            BitSet may = allowed[classOfMember[member]];
            for (int c : order) {
                if (!may.get(c) || visited[c] || room[c] == 0) {
                    continue;
                }
                visited[c] = true;
                if (used[c] < room[c]) {
                    sit(member, c);
                    return true;
                }
                List<Integer> sitting = on.get(c);
                for (int i = 0; i < sitting.size(); i++) {
                    int other = sitting.get(i);
                    sitting.remove(i);
                    used[c]--;
                    if (tryPlace(other)) {
                        sit(member, c);
                        return true;
                    }
                    sitting.add(i, other);
                    used[c]++;
                }
            }
            return false;
        }

        private void sit(int member, int c) {
            candidateOf[member] = c;
            used[c]++;
            List<Integer> sitting = on.get(c);
            if (sitting == null) {
                sitting = new ArrayList<>();
                on.set(c, sitting);
            }
            sitting.add(member);
        }
    }
}
