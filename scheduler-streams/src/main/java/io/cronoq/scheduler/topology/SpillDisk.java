package io.cronoq.scheduler.topology;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Where a tasks store's index keeps what does not fit its memory budget: the tails of long waiting
 * lines, timer queues and expiry queues ({@link SpillingMap}). One RocksDB in the stream task's state
 * directory, beside the store's own. It holds nothing that is not derived from the task records, so it
 * is never logged, has no write-ahead log, starts empty at every open and is deleted at close.
 * <p>
 * Every key starts with the 8-byte id of its queue ({@link #newQueue}). The writing thread and queries
 * use it at once; once it is closed, a read fails as a closed Kafka Streams store's does, so a query
 * asks again after the rebalance.
 */
final class SpillDisk implements AutoCloseable {

    /** A key's queue prefix: 8 bytes. */
    static final int PREFIX = Long.BYTES;

    private final File dir;
    private final Options options;
    private final WriteOptions writes;
    private final RocksDB db;
    private final AtomicLong queues = new AtomicLong();
    /** Reads and writes hold it shared; closing holds it alone, so nothing touches a closed RocksDB. */
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean open = true;
    /** The writes gathered while a {@link Load} is open, else {@code null}; the loading thread's only. */
    private WriteBatch gathered;
    private Thread loader;

    /** Writes gathered before one RocksDB write, while loading: large enough that the calls into RocksDB cost little per entry. */
    static final int LOAD_BATCH = 10_000;

    private SpillDisk(File dir, Options options, WriteOptions writes, RocksDB db) {
        this.dir = dir;
        this.options = options;
        this.writes = writes;
        this.db = db;
    }

    /** Opens an empty spill RocksDB in {@code dir}, deleting whatever an earlier open left there. */
    static SpillDisk open(File dir) {
        delete(dir.toPath());
        if (!dir.mkdirs()) {
            throw new UncheckedIOException(new IOException("could not create the index's spill directory " + dir));
        }
        Options options = new Options().setCreateIfMissing(true)
                // Small: the spilled entries are short, read mostly from the front, and rebuilt after a crash anyway.
                .setWriteBufferSize(4L * 1024 * 1024)
                .setMaxWriteBufferNumber(2)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(Blocks.CACHE));
        WriteOptions writes = new WriteOptions().setDisableWAL(true);
        try {
            return new SpillDisk(dir, options, writes, RocksDB.open(options, dir.getAbsolutePath()));
        } catch (RocksDBException e) {
            writes.close();
            options.close();
            throw new IllegalStateException("could not open the index's spill RocksDB in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A fresh queue id, the prefix of that queue's keys. */
    long newQueue() {
        return queues.incrementAndGet();
    }

    byte[] get(byte[] key) {
        return locked("read", () -> {
            writeGathered();
            return db.get(key);
        });
    }

    void put(byte[] key, byte[] value) {
        write("write", () -> db.put(writes, key, value), batch -> batch.put(key, value));
    }

    void delete(byte[] key) {
        write("delete", () -> db.delete(writes, key), batch -> batch.delete(key));
    }

    /** Deletes every key from {@code from} (inclusive) to {@code to} (exclusive) as one range tombstone. */
    void deleteRange(byte[] from, byte[] to) {
        write("delete", () -> db.deleteRange(writes, from, to), batch -> batch.deleteRange(from, to));
    }

    /** One write: straight to RocksDB, or gathered while this thread loads. */
    private void write(String what, RocksWrite direct, GatheredWrite toGathered) {
        locked(what, () -> {
            if (loading()) {
                toGathered.into(gathered);
                writeGatheredIfFull();
            } else {
                direct.write();
            }
            return null;
        });
    }

    private interface RocksWrite {
        void write() throws RocksDBException;
    }

    private interface GatheredWrite {
        void into(WriteBatch batch) throws RocksDBException;
    }

    /**
     * Starts a load: until it is closed, writes are gathered and written {@link #LOAD_BATCH} at a time,
     * and every key put is taken to be new ({@link #loading}), so a {@link SpillingMap} does not read
     * the disk to find out. For one thread filling an index nobody reads yet, from records that each
     * say different keys: the scan of a store being opened. A read in between sees every write before
     * it, as gathered writes are written first.
     */
    Load load() {
        locked("load", () -> {
            if (gathered != null) {
                throw new IllegalStateException("a load of the index's disk at " + dir + " is already open");
            }
            gathered = new WriteBatch();
            loader = Thread.currentThread();
            return null;
        });
        return this::endLoad;
    }

    /** Whether a {@link #load} is open: every key put now is new. */
    boolean loading() {
        return gathered != null && loader == Thread.currentThread();
    }

    /** A load that {@link #close} ends, writing what it gathered. */
    interface Load extends AutoCloseable {
        @Override
        void close();
    }

    /** Writes what the load gathered and ends it; nothing to write when the disk closed first (it dropped the load). */
    private void endLoad() {
        lock.readLock().lock();
        try {
            if (!loading()) {
                return;
            }
            try {
                writeGathered();
            } catch (RocksDBException e) {
                throw failed("write", e);
            } finally {
                dropGathered();
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    private void dropGathered() {
        if (gathered != null) {
            gathered.close();
            gathered = null;
            loader = null;
        }
    }

    private void writeGatheredIfFull() throws RocksDBException {
        if (gathered.count() >= LOAD_BATCH) {
            writeGathered();
        }
    }

    /** Writes what the load gathered so far; from another thread (one that reads during a load), nothing. */
    private void writeGathered() throws RocksDBException {
        if (loading() && gathered.count() > 0) {
            db.write(writes, gathered);
            gathered.clear();
        }
    }

    /** One call to the RocksDB while it is open. */
    private interface RocksCall<T> {
        T call() throws RocksDBException;
    }

    private <T> T locked(String what, RocksCall<T> call) {
        lock.readLock().lock();
        try {
            ensureOpen();
            return call.call();
        } catch (RocksDBException e) {
            throw failed(what, e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Up to {@code max} entries in key order from {@code from} (inclusive) on, among the keys that share
     * its first {@link #PREFIX} bytes (its queue's).
     */
    List<Map.Entry<byte[], byte[]>> read(byte[] from, int max) {
        return locked("read", () -> {
            writeGathered();
            List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(Math.min(max, 256));
            try (RocksIterator it = db.newIterator()) {
                for (it.seek(from); it.isValid() && entries.size() < max; it.next()) {
                    byte[] key = it.key();
                    if (!samePrefix(key, from)) {
                        break;
                    }
                    entries.add(new AbstractMap.SimpleImmutableEntry<>(key, it.value()));
                }
                it.status();
            }
            return entries;
        });
    }

    private static boolean samePrefix(byte[] key, byte[] other) {
        if (key.length < PREFIX) {
            return false;
        }
        for (int i = 0; i < PREFIX; i++) {
            if (key[i] != other[i]) {
                return false;
            }
        }
        return true;
    }

    /** Closes the RocksDB and deletes its files; later reads and writes fail. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (!open) {
                return;
            }
            open = false;
            dropGathered();
            db.close();
            writes.close();
            options.close();
        } finally {
            lock.writeLock().unlock();
        }
        delete(dir.toPath());
    }

    private void ensureOpen() {
        if (!open) {
            throw new InvalidStateStoreException("the tasks store's index at " + dir + " is closed (its pools moved or the "
                    + "instance is stopping); ask again");
        }
    }

    private IllegalStateException failed(String what, RocksDBException e) {
        return new IllegalStateException("could not " + what + " the index's spill RocksDB in " + dir + ": "
                + e.getMessage(), e);
    }

    /** One block cache for every spill RocksDB of the JVM: each reads its queues from the front, a block once. */
    private static final class Blocks {
        static {
            RocksDB.loadLibrary();
        }

        static final Cache CACHE = new LRUCache(16L * 1024 * 1024);
    }

    private static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the index's spill directory " + dir, e);
        }
    }
}
