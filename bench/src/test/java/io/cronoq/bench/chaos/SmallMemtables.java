package io.cronoq.bench.chaos;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;

/**
 * RocksDB memtables of 16 KiB instead of 16 MiB, so a scheduler under a test's modest load flushes its stores to
 * files every few seconds: what a disk-full test needs to see the state directory written while it runs.
 */
public final class SmallMemtables implements RocksDBConfigSetter {

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        options.setWriteBufferSize(16 * 1024);
        options.setMaxWriteBufferNumber(2);
    }

    @Override
    public void close(String storeName, Options options) {
        // nothing was allocated
    }
}
