package io.cronoq.scheduler.topology;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes one input topic's raw records. A record that cannot be decoded goes to the dead letters
 * with its reason and coordinates; one keyed by anything but its pool is written back to its topic
 * under the pool key (so all of a pool's events meet in one task); the rest go on to the scheduler.
 */
final class DecodeProcessor<E> implements Processor<byte[], byte[], Object, Object> {

    private static final Logger log = LoggerFactory.getLogger(DecodeProcessor.class);

    private final Deserializer<E> deserializer;
    private final Function<E, Object> unwrap;
    private final String rekeySink;
    private ProcessorContext<Object, Object> context;

    DecodeProcessor(Deserializer<E> deserializer, Function<E, Object> unwrap, String rekeySink) {
        this.deserializer = deserializer;
        this.unwrap = unwrap;
        this.rekeySink = rekeySink;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RecordMetadata meta = context.recordMetadata().orElseThrow();
        Inbound inbound;
        try {
            inbound = decode(record, meta);
        } catch (SerializationException | ClassCastException e) {
            deadLetter(record, meta, e.getMessage(), e);
            return;
        }
        String pool = inbound.pool();
        byte[] key = record.key();
        if (pool != null && !pool.isEmpty() && (key == null || !Arrays.equals(key, pool.getBytes(StandardCharsets.UTF_8)))) {
            context.forward(record.withKey(pool.getBytes(StandardCharsets.UTF_8)), rekeySink);
            return;
        }
        String routingKey = pool != null ? pool : key == null ? "" : new String(key, StandardCharsets.UTF_8);
        context.forward(new Record<>(routingKey, inbound, record.timestamp()), SchedulerTopology.SCHEDULER);
    }

    private Inbound decode(Record<byte[], byte[]> record, RecordMetadata meta) {
        if (record.value() == null) {
            throw new SerializationException("the record has no value (a tombstone); cronoq inputs are never null");
        }
        E envelope = deserializer.deserialize(meta.topic(), record.value());
        Object event = unwrap.apply(envelope);
        if (!(event instanceof SpecificRecord specific)) {
            throw new SerializationException("the envelope carries no event");
        }
        return new Inbound(specific, record.key(), record.value(), meta.topic(), meta.partition(), meta.offset());
    }

    private void deadLetter(Record<byte[], byte[]> record, RecordMetadata meta, String reason, Throwable error) {
        log.warn("Dead-lettering {}-{}@{}: {}", meta.topic(), meta.partition(), meta.offset(), reason);
        var letter = DeadLetters.of(meta.topic(), meta.partition(), meta.offset(), record.key(), record.value(),
                reason, error, record.timestamp());
        context.forward(new Record<>(DeadLetters.key(meta.topic(), meta.partition(), meta.offset()), letter,
                record.timestamp()), SchedulerTopology.DEAD_LETTERS_SINK);
    }
}
