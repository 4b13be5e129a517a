package io.cronoq.schemas.events;

import io.cronoq.events.AssignmentEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * How every reader of the assignments topic reads a record: as its events, in order. A record holds
 * what the scheduler told one worker between two of its commits (or, set so, one event): the first
 * in {@code event}, the rest in {@code more}. A record of an earlier release holds one.
 */
public final class Assignments {

    private Assignments() {}

    /** A record of one event, as earlier releases wrote every record. */
    public static AssignmentEvent of(Object event) {
        return new AssignmentEvent(event, List.of());
    }

    /** The events of one record, in order. */
    public static List<Object> events(AssignmentEvent record) {
        List<Object> more = record.getMore();
        if (more == null || more.isEmpty()) {
            return List.of(record.getEvent());
        }
        List<Object> events = new ArrayList<>(more.size() + 1);
        events.add(record.getEvent());
        events.addAll(more);
        return events;
    }
}
