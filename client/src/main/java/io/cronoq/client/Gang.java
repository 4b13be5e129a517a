package io.cronoq.client;

import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.GangRules;
import io.cronoq.schemas.rules.InvalidInputException;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A gang ready to submit: tasks that start together or not at all, sent as one record so the scheduler accepts
 * all of them or none. Member {@code i} is the task {@code <id>-<i>} of the gang's pool. Build one with
 * {@code Gang.of(4, Task.of(payload).label("gpu", "a100")).pool("train").id("run-7").build()}, or from members
 * that differ ({@code Gang.of(List.of(coordinator, worker, worker))}). Sending the same {@code Gang} twice creates
 * one gang. Immutable and thread-safe.
 */
public final class Gang {

    /**
     * The most bytes a gang's members may come to, encoded: a gang travels as one Kafka record, which stays under
     * Kafka's default 1 MB limit with room to spare (the largest payload one task may carry).
     */
    public static final int MAX_BYTES = Rules.MAX_PAYLOAD_BYTES;

    private final GangSubmitted event;

    private Gang(GangSubmitted event) {
        this.event = event;
    }

    /** Starts a gang of {@code size} members, each the task {@code template} describes (without an id). */
    public static Builder of(int size, Task.Builder template) {
        Objects.requireNonNull(template, "template");
        if (size < 1 || size > GangRules.MAX_SIZE) {
            throw new InvalidInputException("size", "size is " + size + "; a gang has 1 to " + GangRules.MAX_SIZE
                    + " members");
        }
        return new Builder(Collections.nCopies(size, template), true, null, null, GangPlacement.ANY, null);
    }

    /** Starts a gang of these members in rank order (e.g. a coordinator, then workers), each without an id. */
    public static Builder of(List<Task.Builder> members) {
        List<Task.Builder> copy = List.copyOf(Objects.requireNonNull(members, "members"));
        if (copy.isEmpty()) {
            throw new InvalidInputException("members", "members is empty; a gang has at least 1 member");
        }
        return new Builder(copy, false, null, null, GangPlacement.ANY, null);
    }

    /** The gang id: the one given, or a random UUID drawn when the gang was built. */
    public String id() {
        return event.getGangId();
    }

    /** The pool every member runs in. */
    public String pool() {
        return event.getPool();
    }

    /** How many members it has. */
    public int size() {
        return event.getMembers().size();
    }

    /** The members' task ids in rank order: {@code <id>-0} … {@code <id>-<size - 1>}. */
    public List<String> memberIds() {
        return event.getMembers().stream().map(TaskSubmitted::getTaskId).toList();
    }

    /** How the members are laid out over workers. */
    public GangPlacement placement() {
        return event.getPlacement();
    }

    /** The label key whose one value every member's worker carries, if given. */
    public Optional<String> sameLabel() {
        return Optional.ofNullable(event.getSameLabel());
    }

    /** When the gang was built (its submission's event time, and each member's). */
    public Instant submittedAt() {
        return event.getSubmittedAt();
    }

    /** The submission event this gang sends: a fresh copy each time. */
    public GangSubmitted toEvent() {
        return GangSubmitted.newBuilder(event).build();
    }

    /** The event itself, for the client's serializer, which only reads it. */
    GangSubmitted event() {
        return event;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gang g && g.event.equals(event);
    }

    @Override
    public int hashCode() {
        return event.hashCode();
    }

    @Override
    public String toString() {
        return "Gang[" + id() + " of " + size() + " in " + pool() + ", " + placement() + "]";
    }

    /**
     * An immutable gang builder: every step returns a new builder. A step refuses a bad value at once with an
     * {@link InvalidInputException} naming the field; {@link #build()} refuses what only the whole gang can tell by
     * {@link GangRules}, the scheduler's own rules, naming the member's field ({@code members[2].tenant}).
     */
    public static final class Builder {

        private final List<Task.Builder> members;
        private final boolean template;
        private final String pool;
        private final String id;
        private final GangPlacement placement;
        private final String sameLabel;

        private Builder(List<Task.Builder> members, boolean template, String pool, String id, GangPlacement placement,
                        String sameLabel) {
            this.members = members;
            this.template = template;
            this.pool = pool;
            this.id = id;
            this.placement = placement;
            this.sameLabel = sameLabel;
        }

        /** The pool every member runs in; required (a member naming another pool is refused). */
        public Builder pool(String pool) {
            throwIfPresent(Rules.pool(pool));
            return new Builder(members, template, pool, id, placement, sameLabel);
        }

        /**
         * The gang id (at most 249 characters, so its members' ids are ids); member {@code i} is the task
         * {@code <id>-<i>}. Not given, {@link #build()} draws a UUID.
         */
        public Builder id(String id) {
            throwIfPresent(GangRules.gangId(id));
            return new Builder(members, template, pool, id, placement, sameLabel);
        }

        /** How the members are laid out over workers ({@link GangPlacement#ANY} if not given). */
        public Builder placement(GangPlacement placement) {
            Objects.requireNonNull(placement, "placement");
            return new Builder(members, template, pool, id, placement, sameLabel);
        }

        /** A label key (e.g. {@code rack}): every member runs on workers that carry one value of it. */
        public Builder sameLabel(String key) {
            Objects.requireNonNull(key, "key");
            throwIfPresent(GangRules.sameLabel(key));
            return new Builder(members, template, pool, id, placement, key);
        }

        /** The gang, its id fixed and its submission time read from the system clock. */
        public Gang build() {
            return build(Clock.systemUTC());
        }

        /**
         * The gang, its id fixed and its submission time (the gang's and every member's) read from {@code clock}.
         *
         * @throws InvalidInputException naming the first field that breaks a rule
         */
        public Gang build(Clock clock) {
            if (pool == null) {
                throw new InvalidInputException("pool", "pool is required: the pool every member runs in");
            }
            String gangId = id != null ? id : UUID.randomUUID().toString();
            Instant now = clock.instant();
            Clock at = Clock.fixed(now, ZoneOffset.UTC);
            List<TaskSubmitted> built = new ArrayList<>(members.size());
            for (int rank = 0; rank < members.size(); rank++) {
                if (template && rank > 0) {
                    built.add(TaskSubmitted.newBuilder(built.get(0)).setTaskId(memberId(gangId, rank)).build());
                } else {
                    built.add(member(members.get(rank), place(rank), gangId, rank, at));
                }
            }
            fitOneRecord(built);
            GangSubmitted gang = GangSubmitted.newBuilder()
                    .setGangId(gangId)
                    .setPool(pool)
                    .setPlacement(placement)
                    .setSameLabel(sameLabel)
                    .setMembers(built)
                    .setSubmitter(built.get(0).getSubmitter())
                    .setSubmittedAt(now)
                    .build();
            throwIfPresent(GangRules.check(gang));
            return new Gang(gang);
        }

        private String place(int rank) {
            return template ? "task" : "members[" + rank + "]";
        }

        private TaskSubmitted member(Task.Builder member, String place, String gangId, int rank, Clock at) {
            if (member.givenId() != null) {
                throw new InvalidInputException(place + ".taskId", "a member's id is the gang's id and its rank ("
                        + memberId(gangId, rank) + "): leave " + place + "'s id out");
            }
            if (member.givenPool() != null && !member.givenPool().equals(pool)) {
                throw new InvalidInputException(place + ".pool", place + " names pool " + member.givenPool()
                        + " and the gang pool " + pool + ": every member runs in the gang's pool");
            }
            try {
                return member.pool(pool).id(memberId(gangId, rank)).build(at).toEvent();
            } catch (InvalidInputException e) {
                throw new InvalidInputException(place + "." + e.field(), place + ": " + e.violation().message());
            }
        }

        private void fitOneRecord(List<TaskSubmitted> built) {
            long total = 0;
            for (TaskSubmitted member : built) {
                total += encodedSize(member);
            }
            if (total > MAX_BYTES) {
                throw new InvalidInputException(template ? "task.payload" : "members", "the " + built.size()
                        + " members come to " + total + " bytes; a gang travels as one Kafka record, so its members "
                        + "are at most " + MAX_BYTES + " bytes together: put large inputs in object storage and pass "
                        + "a reference");
            }
        }

        private static int encodedSize(TaskSubmitted member) {
            try {
                return TaskSubmitted.getEncoder().encode(member).remaining();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static String memberId(String gangId, int rank) {
            return GangRules.memberId(gangId, rank);
        }

        private static void throwIfPresent(Optional<Violation> violation) {
            if (violation.isPresent()) {
                throw violation.get().toException();
            }
        }
    }
}
