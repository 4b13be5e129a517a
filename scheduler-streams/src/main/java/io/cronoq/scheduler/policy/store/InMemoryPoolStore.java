package io.cronoq.scheduler.policy.store;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link PoolStore} in memory, for tests, benchmarks, replay and simulation.
 *
 * <p>{@code new InMemoryPoolStore()} keeps the very objects it is given: fast, but a caller that
 * mutates a record without putting it back would go unnoticed. {@link #copying()} behaves like the
 * RocksDB store instead: every record is Avro-encoded on put and decoded on read, so only what
 * was written through the store survives (and a record that cannot be encoded fails at once).
 * Decoding needs the JVM to trust {@code io.cronoq.events} (system property
 * {@code org.apache.avro.SERIALIZABLE_PACKAGES}), as any Avro 1.12 reader of these classes does.
 */
public final class InMemoryPoolStore implements PoolStore {

    private final boolean copying;
    private final Map<String, Object> tasks = new HashMap<>();
    private final Map<String, Object> workers = new LinkedHashMap<>();
    private final InMemoryWaitingQueue waiting = new InMemoryWaitingQueue();
    private final InMemoryTimerQueue timers = new InMemoryTimerQueue();
    private final InMemoryTimerQueue expiries = new InMemoryTimerQueue();
    private final DependencyStore dependencies = KeyedDependencyStore.inMemory();
    private Object pool;
    private Object sharing;
    private Object limits;

    /** A store that keeps the objects it is given. */
    public InMemoryPoolStore() {
        this(false);
    }

    private InMemoryPoolStore(boolean copying) {
        this.copying = copying;
    }

    /** A store that keeps encoded copies, as a serializing store would. */
    public static InMemoryPoolStore copying() {
        return new InMemoryPoolStore(true);
    }

    @Override
    public PoolRecord pool() {
        return read(pool, PoolRecord::fromByteBuffer);
    }

    @Override
    public void putPool(PoolRecord record) {
        pool = kept(record, record::toByteBuffer);
    }

    @Override
    public SharingRecord sharing() {
        return read(sharing, SharingRecord::fromByteBuffer);
    }

    @Override
    public void putSharing(SharingRecord record) {
        sharing = kept(record, record::toByteBuffer);
    }

    @Override
    public LimitsRecord limits() {
        return read(limits, LimitsRecord::fromByteBuffer);
    }

    @Override
    public void putLimits(LimitsRecord record) {
        limits = kept(record, record::toByteBuffer);
    }

    @Override
    public TaskRecord task(String taskId) {
        return read(tasks.get(taskId), TaskRecord::fromByteBuffer);
    }

    @Override
    public void putTask(TaskRecord task) {
        tasks.put(task.getTask().getTaskId(), kept(task, task::toByteBuffer));
    }

    @Override
    public void deleteTask(String taskId) {
        tasks.remove(taskId);
    }

    @Override
    public Iterable<WorkerRecord> workers() {
        List<WorkerRecord> all = new ArrayList<>(workers.size());
        for (Object stored : workers.values()) {
            all.add(read(stored, WorkerRecord::fromByteBuffer));
        }
        return all;
    }

    @Override
    public void putWorker(WorkerRecord worker) {
        workers.put(worker.getWorkerId(), kept(worker, worker::toByteBuffer));
    }

    @Override
    public InMemoryWaitingQueue waiting() {
        return waiting;
    }

    @Override
    public InMemoryTimerQueue timers() {
        return timers;
    }

    @Override
    public InMemoryTimerQueue expiries() {
        return expiries;
    }

    @Override
    public DependencyStore dependencies() {
        return dependencies;
    }

    /** Ids of every task put and not deleted (for inspection and tests). */
    public Collection<String> taskIds() {
        return List.copyOf(tasks.keySet());
    }

    private interface IoSupplier<T> {
        T get() throws IOException;
    }

    private interface Decoder<T> {
        T from(ByteBuffer encoded) throws IOException;
    }

    /** What is kept for a record put: the record itself, or its encoding when copying. */
    private Object kept(Object record, IoSupplier<ByteBuffer> encoder) {
        return copying ? encode(encoder) : record;
    }

    /** The record kept as {@code stored} ({@code null}: none), decoded anew when copying. */
    @SuppressWarnings("unchecked") // what is kept in a field or map is only ever the record type it reads back as
    private <T> T read(Object stored, Decoder<T> decoder) {
        if (stored == null) {
            return null;
        }
        return copying ? decode(() -> decoder.from(((ByteBuffer) stored).duplicate())) : (T) stored;
    }

    private static <T> T decode(IoSupplier<T> decoder) {
        try {
            return decoder.get();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ByteBuffer encode(IoSupplier<ByteBuffer> encoder) {
        try {
            return encoder.get();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
