package io.cronoq.gateway;

import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.SharingRules;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * The rules a gang's members break together, or as members (not as tasks): each refusal is a 400 naming the
 * member's field as the body spells it ({@code members[2].tenant}, {@code task.concurrency}).
 */
final class GangMembers {

    private GangMembers() {}

    /**
     * What {@code reader} makes of the member at {@code place}; a refusal of one of its fields is answered for
     * {@code <place>.<field>}, its message saying which member.
     */
    static <T> T within(String place, Supplier<T> reader) {
        try {
            return reader.get();
        } catch (ApiException e) {
            String field = e.field() == null || e.field().equals("body") ? place : place + "." + e.field();
            throw new ApiException(e.code(), place + ": " + e.getMessage(), field, e.getCause());
        }
    }

    /** Refuses what a member may not hold yet: concurrency keys, rate limits, a fixed start, a not-before time. */
    static void refuseWhatGangsDoNotTake(TaskSubmitted member, String place) {
        if (!member.getConcurrency().isEmpty()) {
            throw notYet(place, "concurrency", "concurrency keys");
        }
        if (!member.getRateLimits().isEmpty()) {
            throw notYet(place, "rateLimits", "rate limits");
        }
        if (member.getStartAt() != null) {
            throw notYet(place, "startAt", "a fixed start (startAt)");
        }
        if (member.getNotBefore() != null) {
            throw notYet(place, "notBefore", "a not-before time (notBefore)");
        }
    }

    private static ApiException notYet(String place, String field, String what) {
        return ApiException.invalid(place + "." + field, "gangs do not take " + what + " yet: leave " + place + "."
                + field + " out (a gang's members start together when the pool has room for all of them)");
    }

    /** Refuses members that run for different tenants (none is the tenant {@code default}). */
    static void oneTenant(List<TaskSubmitted> members, boolean template) {
        String first = SharingRules.tenantOf(members.get(0).getTenant());
        for (int rank = 1; rank < members.size() && !template; rank++) {
            String tenant = SharingRules.tenantOf(members.get(rank).getTenant());
            if (!tenant.equals(first)) {
                String place = "members[" + rank + "]";
                throw ApiException.invalid(place + ".tenant", "members[0] runs for tenant " + first + " and " + place
                        + " for " + tenant + ": a gang runs for one tenant; name the same tenant in every member, or "
                        + "none");
            }
        }
    }

    /**
     * Refuses members that require different values of the {@code sameLabel} key: they could never share one. A
     * member that does not require the key can run beside any value.
     */
    static void oneValueOf(String sameLabel, List<TaskSubmitted> members, boolean template) {
        if (sameLabel == null || template) {
            return;
        }
        Integer firstRank = null;
        for (int rank = 0; rank < members.size(); rank++) {
            String value = members.get(rank).getLabels().get(sameLabel);
            if (value == null) {
                continue;
            }
            if (firstRank == null) {
                firstRank = rank;
                continue;
            }
            String first = members.get(firstRank).getLabels().get(sameLabel);
            if (!value.equals(first)) {
                String place = "members[" + rank + "]";
                throw ApiException.invalid(place + ".labels." + sameLabel, "members[" + firstRank + "] requires "
                        + sameLabel + "=" + first + " and " + place + " " + sameLabel + "=" + value + ", but with "
                        + "sameLabel " + sameLabel + " every member runs on one value of it: require the same value, "
                        + "or leave " + sameLabel + " out of the members' labels");
            }
        }
    }

    /** Refuses members whose encoded size together is over {@code maxBytes}: a gang is one Kafka record. */
    static void fitOneRecord(List<TaskSubmitted> members, boolean template, int maxBytes) {
        long total = 0;
        if (template) {
            // The copies differ only in their ids; the last one's is the longest.
            total = (long) encodedSize(members.get(members.size() - 1)) * members.size();
        } else {
            for (TaskSubmitted member : members) {
                total += encodedSize(member);
            }
        }
        if (total > maxBytes) {
            String field = template ? "task.payload" : "members";
            throw ApiException.invalid(field, "the " + members.size() + " members come to " + total + " bytes; a gang "
                    + "travels as one Kafka record, so its members are at most " + maxBytes + " bytes together "
                    + "(each payload counts once per member): put large inputs in object storage and pass a reference");
        }
    }

    private static int encodedSize(TaskSubmitted member) {
        try {
            return TaskSubmitted.getEncoder().encode(member).remaining();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
