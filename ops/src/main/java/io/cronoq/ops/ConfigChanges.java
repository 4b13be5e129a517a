package io.cronoq.ops;

import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.SubmissionEvent;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * What a scheduler's config file sets at every start, checked before anything starts: its sharing
 * policy ({@link SharingConfig}) and its limits ({@link LimitsConfig}), as the admin changes the
 * scheduler journals like any other.
 *
 * @param sharing the {@code [[sharing.pools]]} then the {@code [[sharing.tenants]]} entries
 * @param limits  the {@code [[limits.keys]]} then the {@code [[limits.rates]]} entries
 */
record ConfigChanges(List<SharingPolicySet> sharing, List<LimitSet> limits) {

    /** No config file, or one that sets nothing. */
    static final ConfigChanges NONE = new ConfigChanges(List.of(), List.of());

    ConfigChanges {
        sharing = List.copyOf(sharing);
        limits = List.copyOf(limits);
    }

    /**
     * The changes of {@code file} (none when null), stamped {@code at}.
     *
     * @throws IllegalArgumentException naming the malformed entry and key, and what to write
     */
    static ConfigChanges read(Path file, Instant at) {
        return file == null ? NONE : new ConfigChanges(SharingConfig.read(file, at), LimitsConfig.read(file, at));
    }

    /** One change as the submissions topic carries it: keyed by its pool, like an admin's through the gateway. */
    record Change(String pool, SubmissionEvent event) {}

    /** Every change in the order sent: the sharing policy, then the limits. */
    List<Change> changes() {
        List<Change> out = new ArrayList<>();
        sharing.forEach(p -> out.add(new Change(p.getPool(), new SubmissionEvent(p))));
        limits.forEach(l -> out.add(new Change(l.getPool(), new SubmissionEvent(l))));
        return out;
    }

    boolean isEmpty() {
        return sharing.isEmpty() && limits.isEmpty();
    }

    /** {@code sharing policy}, {@code limits}, or {@code sharing policy and limits}: what the file sets. */
    String what() {
        return sharing.isEmpty() ? "limits" : limits.isEmpty() ? "sharing policy" : "sharing policy and limits";
    }

    /** {@code 2 tenant setting(s) and 1 pool setting(s); 1 key limit(s) and 1 rate limit(s)}, for a progress line. */
    String summary() {
        StringJoiner out = new StringJoiner("; ");
        if (!sharing.isEmpty()) {
            long tenants = sharing.stream().filter(p -> p.getTenant() != null).count();
            out.add(tenants + " tenant setting(s) and " + (sharing.size() - tenants) + " pool setting(s)");
        }
        if (!limits.isEmpty()) {
            long keys = limits.stream().filter(l -> l.getKind() == LimitKind.CONCURRENCY_KEY).count();
            out.add(keys + " key limit(s) and " + (limits.size() - keys) + " rate limit(s)");
        }
        return out.toString();
    }
}
