package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.Units;
import io.cronoq.scheduler.policy.match.ResourceProfile;
import io.cronoq.scheduler.policy.match.ResourceNeed;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Why the tasks of a requirement class wait, in words an operator can act on, aggregated over the
 * pool's workers the way Kubernetes reports a pending pod, but with each worker counted once, under
 * the first check it fails (labels, then published resources, cpu, memory, disk, GPUs, packages,
 * then draining), and with the quantities in human units:
 * <ul>
 *   <li>{@code 0/7 workers can run it: 4 lack gpu=a100, 2 have too little memory (needs 8Gi, largest 4Gi), 1 is draining}</li>
 *   <li>{@code 0/0 workers can run it: pool p has no live worker; it needs gpu=a100, 1 GPU}</li>
 *   <li>{@code 3 workers match; all 12 slots busy} — a task adds its place: {@code ; 5th in line}</li>
 * </ul>
 * It is a function of the class and the pool's live workers only (never of the backlog or of busy
 * slots: while a class waits, its matching slots are all busy), so it changes only when a worker
 * registers, drains or leaves, and is computed per class, not per task.
 *
 * <p>{@code text}: the reason of the class; {@code busy}: whether workers match and all their slots
 * are busy (then a task's place in line matters). Equal when both are.
 */
final class WaitReason {

    private final String text;
    private final boolean busy;
    /** {@link #forPlace}(1), made when first told: every head, and every task alone in its line, is told it. */
    private String first;

    WaitReason(String text, boolean busy) {
        this.text = text;
        this.busy = busy;
    }

    String text() {
        return text;
    }

    boolean busy() {
        return busy;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WaitReason r && r.busy == busy && r.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode() * 31 + Boolean.hashCode(busy);
    }

    @Override
    public String toString() {
        return text;
    }

    /** Installed versions listed at most when a package requirement is not met. */
    private static final int VERSIONS_SHOWN = 3;
    /**
     * How many characters of one list (the shortfalls, a class's need) a reason spells before it
     * counts the rest, {@code … and 12 more}: a reason is journaled with each change of a task and
     * shown by every read, so it stays short however many labels or workers are involved.
     */
    static final int MAX_LIST_CHARS = 400;
    /** ... and of the labels one shortfall names as missing. */
    private static final int MAX_MISSING_CHARS = 160;

    /** The reason of a class with waiting tasks, now. */
    static WaitReason of(String pool, Need c, Collection<Group> groups) {
        if (c.capacity > 0) {
            int workers = c.activeWorkers();
            return new WaitReason(Units.count(workers, "worker matches", "workers match") + "; "
                    + (c.capacity == 1 ? "its only slot is busy" : "all " + c.capacity + " slots busy"), true);
        }
        ResourceNeed need = c.requirement.resources();
        TreeMap<String, Tally> tallies = new TreeMap<>();
        long total = 0;
        for (Group g : groups) {
            String missing = g.labels().missing(c.labels());
            for (Profile p : g.profiles()) {
                int n = p.activeWorkers + p.drainingWorkers;
                total += n;
                if (!missing.isEmpty()) {
                    tally(tallies, Kind.LABELS, missing).add(n, 0, null);
                    continue;
                }
                ResourceProfile.Shortfall s = p.resources.shortfall(need);
                if (s == null) {
                    // It satisfies the requirement, yet the class has no capacity: all its workers drain.
                    tally(tallies, Kind.DRAINING, "").add(n, 0, null);
                } else {
                    Kind kind = Kind.valueOf(s.dimension().name());
                    String detail = s.requirement() == null ? "" : s.requirement().toString();
                    tally(tallies, kind, detail).add(n, s.has(), s.installed());
                }
            }
        }
        if (total == 0) {
            String wanted = c.requirement.toString();
            return new WaitReason("0/0 workers can run it: pool " + pool + " has no live worker"
                    + (wanted.equals("nothing") ? "" : "; it needs " + some(List.of(wanted.split(", ")), ", ",
                            MAX_LIST_CHARS)), false);
        }
        List<String> parts = new ArrayList<>(tallies.size());
        for (Tally t : tallies.values()) {
            parts.add(t.describe(need));
        }
        return new WaitReason("0/" + total + " workers can run it: " + some(parts, ", ", MAX_LIST_CHARS), false);
    }

    /**
     * The items joined by {@code separator} as far as {@code maxChars} allows (the first always),
     * then {@code " … and N more"} for the ones left out.
     */
    static String some(List<String> items, String separator, int maxChars) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        for (String item : items) {
            if (shown > 0 && b.length() + separator.length() + item.length() > maxChars) {
                break;
            }
            b.append(shown > 0 ? separator : "").append(item);
            shown++;
        }
        return shown == items.size() ? b.toString() : b + " … and " + (items.size() - shown) + " more";
    }

    /** The reason of one task that is {@code place}th in its class's line. */
    String forPlace(long place) {
        if (!busy) {
            return text;
        }
        if (place == 1) {
            if (first == null) {
                first = text + "; 1st in line";
            }
            return first;
        }
        return text + "; " + Units.ordinal(place) + " in line";
    }

    /** The reason of a task put back in line at its original place, somewhere among {@code waiting}. */
    String backInLine(long waiting) {
        return busy ? text + "; back at its original place in line (" + waiting + " waiting)" : text;
    }

    private enum Kind { LABELS, UNPUBLISHED, CPU, MEMORY, DISK, GPU, PACKAGE, DRAINING }

    private static Tally tally(TreeMap<String, Tally> tallies, Kind kind, String detail) {
        return tallies.computeIfAbsent(kind.ordinal() + "\0" + detail, k -> new Tally(kind, detail));
    }

    /** The workers that fail a class at the same check. */
    private static final class Tally {
        final Kind kind;
        final String detail;
        long workers;
        long most;
        final TreeSet<String> installed = new TreeSet<>();

        Tally(Kind kind, String detail) {
            this.kind = kind;
            this.detail = detail;
        }

        void add(long n, long has, Collection<String> versions) {
            workers += n;
            most = Math.max(most, has);
            if (versions != null) {
                installed.addAll(versions);
            }
        }

        String describe(ResourceNeed need) {
            String have = workers == 1 ? " has " : " have ";
            return workers + switch (kind) {
                case LABELS -> (workers == 1 ? " lacks " : " lack ")
                        + some(List.of(detail.split(",")), ",", MAX_MISSING_CHARS);
                case UNPUBLISHED -> " published no resources";
                case CPU -> have + "too little cpu (needs " + Units.cpu(need.cpuMillis()) + ", largest "
                        + Units.cpu(most) + ")";
                case MEMORY -> have + "too little memory" + needsAndLargest(need.memoryBytes());
                case DISK -> have + "too little disk" + needsAndLargest(need.diskBytes());
                case GPU -> most == 0
                        ? have + "no free GPU" + (need.gpus() > 1 ? " (needs " + need.gpus() + ")" : "")
                        : have + "too few free GPUs (needs " + need.gpus() + ", most " + most + ")";
                case PACKAGE -> (workers == 1 ? " lacks " : " lack ") + detail + versions();
                case DRAINING -> workers == 1 ? " is draining" : " are draining";
            };
        }

        /** {@code " (needs 8Gi, largest 4Gi)"}, with the two never written alike. */
        private String needsAndLargest(long needBytes) {
            String[] shown = Units.bytesApart(needBytes, most);
            return " (needs " + shown[0] + ", largest " + shown[1] + ")";
        }

        private String versions() {
            if (installed.isEmpty()) {
                return "";
            }
            List<String> shown = new ArrayList<>(installed).subList(0, Math.min(VERSIONS_SHOWN, installed.size()));
            return " (installed " + String.join(", ", shown) + (installed.size() > VERSIONS_SHOWN ? ", ..." : "")
                    + ")";
        }
    }
}
