package io.cronoq.scheduler.topology;

import io.cronoq.events.DeadLetter;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;

/**
 * Builds the dead-letter record of an input that could not be decoded or processed. It keeps the
 * input's bytes, but at most {@link #MAX_KEPT_BYTES} of its key and of its value, so a dead letter
 * always fits in a Kafka record even when the input barely did; the reason says when bytes were cut.
 */
final class DeadLetters {

    static final int MAX_KEPT_BYTES = 256 * 1024;

    private DeadLetters() {}

    static DeadLetter of(String topic, int partition, long offset, byte[] key, byte[] value,
                         String reason, Throwable error, long timestamp) {
        String cut = cutNote("key", key) + cutNote("value", value);
        return DeadLetter.newBuilder()
                .setTopic(topic)
                .setPartition(partition)
                .setOffset(offset)
                .setKey(kept(key))
                .setValue(kept(value))
                .setReason(reason + cut)
                .setException(error == null ? null : error.getClass().getName())
                .setAt(Instant.ofEpochMilli(timestamp))
                .build();
    }

    private static ByteBuffer kept(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        return ByteBuffer.wrap(bytes.length <= MAX_KEPT_BYTES ? bytes : Arrays.copyOf(bytes, MAX_KEPT_BYTES));
    }

    private static String cutNote(String what, byte[] bytes) {
        return bytes == null || bytes.length <= MAX_KEPT_BYTES ? ""
                : " (the " + what + " was " + bytes.length + " bytes; its first " + MAX_KEPT_BYTES
                        + " are kept, the original is at the coordinates)";
    }

    /** Key of a dead letter: its coordinates, unique per input record. */
    static String key(String topic, int partition, long offset) {
        return topic + "/" + partition + "/" + offset;
    }
}
