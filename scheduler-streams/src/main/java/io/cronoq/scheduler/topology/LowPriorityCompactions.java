package io.cronoq.scheduler.topology;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.Priority;

/**
 * Runs the state stores' background work (RocksDB's memtable flushes and compactions) at the lowest CPU and I/O
 * priority, so it takes only what the stream thread leaves. Flushes and compactions come in bursts: on a two-core
 * machine at 5,000 tasks/s, the flush thread and both compaction threads were busy at once for a second, and the
 * stream thread, starved, took a submission in 232 ms after the broker had it (its median: under a millisecond).
 * The work still runs whenever a core is free, and a store that falls far behind slows its own writes, as RocksDB
 * always does. The priority belongs to RocksDB's shared thread pools, so it holds for every store of the process.
 * A scheduler configured with a {@code rocksdb.config.setter} of its own runs without it.
 */
public final class LowPriorityCompactions implements RocksDBConfigSetter {

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Env env = options.getEnv();
        for (Priority pool : new Priority[] {Priority.LOW, Priority.HIGH}) {
            env.lowerThreadPoolCPUPriority(pool);
            env.lowerThreadPoolIOPriority(pool);
        }
    }

    @Override
    public void close(String storeName, Options options) {
        // nothing was allocated: the environment is RocksDB's own
    }
}
