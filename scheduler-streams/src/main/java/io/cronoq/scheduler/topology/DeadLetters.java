package io.cronoq.scheduler.topology;

import io.cronoq.events.DeadLetter;
import java.nio.ByteBuffer;
import java.time.Instant;

/** Builds the dead-letter record of an input that could not be decoded or processed. */
final class DeadLetters {

    private DeadLetters() {}

    static DeadLetter of(String topic, int partition, long offset, byte[] key, byte[] value,
                         String reason, Throwable error, long timestamp) {
        return DeadLetter.newBuilder()
                .setTopic(topic)
                .setPartition(partition)
                .setOffset(offset)
                .setKey(key == null ? null : ByteBuffer.wrap(key))
                .setValue(value == null ? null : ByteBuffer.wrap(value))
                .setReason(reason)
                .setException(error == null ? null : error.getClass().getName())
                .setAt(Instant.ofEpochMilli(timestamp))
                .build();
    }

    /** Key of a dead letter: its coordinates, unique per input record. */
    static String key(String topic, int partition, long offset) {
        return topic + "/" + partition + "/" + offset;
    }
}
