package io.cronoq.scheduler.app;

import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;

/**
 * The Kafka clients of a scheduler instance: Kafka Streams' own ({@link DefaultKafkaClientSupplier}),
 * except that a transactional producer leaves the waiting for acknowledgements to the commit of its
 * transaction.
 *
 * <p>At a commit, Kafka Streams prepares its stream tasks one after the other. Each writes its
 * cached store records to their changelogs and then flushes the producer, which waits until every
 * record sent so far is acknowledged. Under exactly-once one producer serves all the tasks of a
 * stream thread, so a commit waited one round trip to the broker for each task with cached writes,
 * in turn, and then two more for the consumed offsets and the transaction's end. The thread
 * processes nothing while it commits, and an assignment is seen only when its transaction commits.
 *
 * <p>Committing the transaction waits for its records anyway: {@code KafkaProducer.commitTransaction}
 * sends what is unsent, ends the transaction only once every record is acknowledged (after their
 * callbacks ran, so the changelog offsets Kafka Streams records for its stores are complete), and
 * fails when any record failed, so a commit never covers a record that was not written. So a
 * transactional producer's {@code flush()} does nothing here, and the tasks' changelog records
 * travel together, beside the offsets' commit. Without a transaction (at-least-once) nothing else
 * waits for the records, and {@code flush()} waits as Kafka's does.
 *
 * <p>What changes besides the time: a send error that arrives while committing is reported by the
 * commit rather than by the flush (Kafka Streams then replaces the thread where it would have
 * closed the tasks as migrated, for an out-of-order sequence; a fenced producer is still a
 * migration), and the wait for the acknowledgements is bounded by the producer's
 * {@code max.block.ms}, where the flush waited without a bound.
 */
public final class StreamClients extends DefaultKafkaClientSupplier {

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        if (config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG) != null) {
            return new FlushAtCommit(config);
        }
        return super.getProducer(config);
    }

    /** A transactional producer whose records are waited for by its commit alone. */
    static final class FlushAtCommit extends KafkaProducer<byte[], byte[]> {

        FlushAtCommit(Map<String, Object> config) {
            super(config, new ByteArraySerializer(), new ByteArraySerializer());
        }

        /** Nothing: {@link #commitTransaction()} sends, and waits for, every record of the transaction. */
        @Override
        public void flush() {
        }
    }
}
