package io.cronoq.scheduler.topology;

import org.apache.avro.specific.SpecificRecord;

/**
 * A decoded input on its way to the scheduler, with the bytes and coordinates it came from, so a
 * failure further on can still dead-letter it byte for byte.
 */
record Inbound(SpecificRecord event, byte[] rawKey, byte[] rawValue, String topic, int partition, long offset) {

    /** The pool named by the event, or {@code null} when the event names none. */
    String pool() {
        var field = event.getSchema().getField("pool");
        Object value = field == null ? null : event.get(field.pos());
        return value == null ? null : value.toString();
    }

    String type() {
        return event.getSchema().getName();
    }
}
