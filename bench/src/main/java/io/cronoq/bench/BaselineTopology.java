package io.cronoq.bench;

import java.util.Arrays;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The physical baseline the scheduler is measured against: a Kafka Streams passthrough that does one
 * RocksDB get and one put (changelogged) per record and forwards the record unchanged — the least
 * any stateful, exactly-once processor of these records must do on this broker.
 */
public final class BaselineTopology {

    /** The store of the baseline; its key is the record's id (value bytes 8–16). */
    public static final String STORE = "bench-baseline-store";

    private BaselineTopology() {}

    /** input → get+put → output, bytes in and out. */
    public static Topology build(String input, String output) {
        Topology topology = new Topology();
        var bytes = Serdes.ByteArray();
        topology.addSource("baseline-source", bytes.deserializer(), bytes.deserializer(), input);
        topology.addProcessor("baseline-get-put", GetPut::new, "baseline-source");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE),
                Serdes.Bytes(), Serdes.ByteArray()), "baseline-get-put");
        topology.addSink("baseline-sink", output, bytes.serializer(), bytes.serializer(), "baseline-get-put");
        return topology;
    }

    /** One get and one put of the record's id, then forward. */
    private static final class GetPut implements Processor<byte[], byte[], byte[], byte[]> {
        private ProcessorContext<byte[], byte[]> context;
        private KeyValueStore<Bytes, byte[]> store;

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
            this.store = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            byte[] value = record.value();
            Bytes id = Bytes.wrap(Arrays.copyOfRange(value, Long.BYTES, Math.min(value.length, 2 * Long.BYTES)));
            // Read what is known of the record before writing it, as the scheduler reads a task before it writes it.
            store.get(id);
            store.put(id, value);
            context.forward(record);
        }
    }
}
