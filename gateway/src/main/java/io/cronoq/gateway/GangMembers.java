package io.cronoq.gateway;

import io.cronoq.events.TaskSubmitted;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the gateway refuses of a gang's members beyond {@link io.cronoq.schemas.rules.GangRules}, or before it with
 * the body's words: each refusal is a 400 naming the member's field as the body spells it ({@code task.concurrency}).
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

    /** Refuses what a member may not hold yet: a fixed start, a not-before time. */
    static void refuseWhatGangsDoNotTake(TaskSubmitted member, String place) {
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
