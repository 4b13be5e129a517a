package io.cronoq.scheduler.topology;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.errors.StreamsException;

/**
 * Tells an input's own fault from the runtime's. The placement policy knows nothing of Kafka, so a
 * Kafka or Kafka Streams exception met while an input is handled (the task migrated to another
 * instance, the producer fenced, a state store closed or its disk full) is never the input's doing:
 * it must reach Kafka Streams, which aborts the transaction and recovers the task, instead of being
 * dead-lettered as poison. A serialization failure is the exception: a value the input made that
 * cannot be written is the input's fault.
 */
final class RuntimeFaults {

    private RuntimeFaults() {}

    /** Whether {@code failure}, or anything that caused it, belongs to Kafka's runtime rather than to the input. */
    static boolean belongToRuntime(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SerializationException) {
                return false;
            }
            if (t instanceof StreamsException || t instanceof KafkaException) {
                return true;
            }
        }
        return false;
    }
}
