package io.cronoq.scheduler.topology;

import java.nio.ByteBuffer;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An ordered map of which only the first entries are in memory: at most {@code headMax} of them (the
 * head); the rest (the tail) wait in a {@link SpillDisk}, and are read back, a batch at a time, as the
 * head drains. The scheduler reads a waiting line, a timer queue or an expiry queue from its front, so
 * the heap holds a few hundred entries of each however long it grows. Without a disk everything stays
 * in memory.
 * <p>
 * Every key in the tail comes after every key in the head. Adding and removing are idempotent (adding
 * what is there, or removing what is not, changes nothing), as replayed restores need. One thread
 * writes; others may read at the same time, and see every entry once, in order, though not one instant
 * of the whole map.
 *
 * @param <K> the keys; {@link Codec#order} must order them as their encoded bytes compare
 * @param <V> the values
 */
public final class SpillingMap<K, V> {

    /** How keys and values are written to the disk. */
    public interface Codec<K, V> {
        /** The order of the keys, the same as that of their bytes compared unsigned, one by one. */
        Comparator<K> order();

        void writeKey(K key, ByteBuffer into);

        /** How many bytes {@link #writeKey} writes. */
        int keyLength(K key);

        K readKey(ByteBuffer from);

        byte[] value(V value);

        V value(byte[] bytes);
    }

    private final ConcurrentSkipListMap<K, V> head;
    private final Codec<K, V> codec;
    private final SpillDisk disk;
    private final long queue;
    private final int headMax;
    private final AtomicLong size = new AtomicLong();
    /** How many entries are on disk; written by the writing thread only. */
    private final AtomicLong tail = new AtomicLong();
    /**
     * No key on disk comes after it ({@code null} while the disk holds none of this map's); the writing
     * thread's only. A key past it is new without a read: most keys join at the end.
     */
    private K tailBound;

    /** The fewest entries kept in memory: a quarter of them (the refill's threshold) is at least one. */
    static final int MIN_HEAD = 4;

    /** A map with at most {@code headMax} entries in memory and the rest on {@code disk} (all in memory when it is {@code null}). */
    SpillingMap(Codec<K, V> codec, SpillDisk disk, int headMax) {
        if (disk != null && headMax < MIN_HEAD) {
            throw new IllegalArgumentException("a spilling map keeps at least " + MIN_HEAD + " entries in memory, not "
                    + headMax);
        }
        this.codec = codec;
        this.head = new ConcurrentSkipListMap<>(codec.order());
        this.disk = disk;
        this.queue = disk == null ? 0 : disk.newQueue();
        this.headMax = disk == null ? Integer.MAX_VALUE : headMax;
    }

    /** Entries in all. */
    public long size() {
        return size.get();
    }

    /** Entries on disk. */
    long spilled() {
        return tail.get();
    }

    /** Puts {@code key} with {@code value}; whether it was not there before (a key there keeps its first value in the tail). */
    boolean put(K key, V value) {
        if (tail.get() == 0 || !head.isEmpty() && codec.order().compare(key, head.lastKey()) <= 0) {
            if (head.put(key, value) != null) {
                return false;
            }
            size.incrementAndGet();
            if (inMemory() > headMax) {
                spillLast();
            }
            return true;
        }
        byte[] bytes = key(key);
        if (codec.order().compare(key, tailBound) > 0) {
            tailBound = key;
        } else if (!disk.loading() && disk.get(bytes) != null) {
            return false;
        }
        disk.put(bytes, codec.value(value));
        tail.incrementAndGet();
        size.incrementAndGet();
        return true;
    }

    /** Removes {@code key}; whether it was there. */
    boolean remove(K key) {
        if (head.remove(key) != null) {
            size.decrementAndGet();
            if (tail.get() > 0 && inMemory() < headMax / 4) {
                refill();
            }
            return true;
        }
        if (tail.get() == 0 || !head.isEmpty() && codec.order().compare(key, head.lastKey()) <= 0) {
            return false;
        }
        byte[] bytes = key(key);
        if (disk.get(bytes) == null) {
            return false;
        }
        disk.delete(bytes);
        if (tail.decrementAndGet() == 0) {
            tailBound = null;
        }
        size.decrementAndGet();
        return true;
    }

    /** The first entry, or {@code null} when the map is empty. */
    public Map.Entry<K, V> first() {
        Map.Entry<K, V> first = head.firstEntry();
        if (first != null || tail.get() == 0) {
            return first;
        }
        List<Map.Entry<K, V>> fromDisk = readTail(null, 1);
        return fromDisk.isEmpty() ? null : fromDisk.get(0);
    }

    /** The first {@code max} entries in order (fewer when there are fewer). */
    public List<Map.Entry<K, V>> first(int max) {
        List<Map.Entry<K, V>> first = new ArrayList<>(Math.min(max, 256));
        Iterator<Map.Entry<K, V>> it = entries().iterator();
        while (first.size() < max && it.hasNext()) {
            first.add(it.next());
        }
        return first;
    }

    /** Every entry in order: the head's, then the tail's read from disk in batches as the iteration goes. */
    public Iterable<Map.Entry<K, V>> entries() {
        return InOrder::new;
    }

    /**
     * Entries in memory, for the writing thread between its changes: what is not on disk. (A skip list
     * counts itself by walking, and this is asked at every change.)
     */
    private long inMemory() {
        return size.get() - tail.get();
    }

    /** Moves the head's last entry to the disk: written there before it leaves memory, so a reader never misses it. */
    private void spillLast() {
        Map.Entry<K, V> last = head.lastEntry();
        disk.put(key(last.getKey()), codec.value(last.getValue()));
        if (tail.incrementAndGet() == 1 || codec.order().compare(last.getKey(), tailBound) > 0) {
            tailBound = last.getKey();
        }
        head.remove(last.getKey());
    }

    /** Moves the tail's first entries into memory, up to half the head's budget: put in memory before they leave the disk. */
    private void refill() {
        List<Map.Entry<K, V>> moved = readTail(head.isEmpty() ? null : head.lastKey(), headMax / 2);
        if (moved.isEmpty()) {
            return;
        }
        for (Map.Entry<K, V> e : moved) {
            head.put(e.getKey(), e.getValue());
        }
        byte[] last = key(moved.get(moved.size() - 1).getKey());
        disk.deleteRange(key(moved.get(0).getKey()), Arrays.copyOf(last, last.length + 1));
        if (tail.addAndGet(-moved.size()) == 0) {
            tailBound = null;
        }
    }

    /** Up to {@code max} tail entries after {@code after} (from the first when {@code null}). */
    private List<Map.Entry<K, V>> readTail(K after, int max) {
        byte[] from = after == null ? prefixOnly() : key(after);
        List<Map.Entry<byte[], byte[]>> raw = disk.read(from, max + 1);
        List<Map.Entry<K, V>> entries = new ArrayList<>(raw.size());
        for (Map.Entry<byte[], byte[]> e : raw) {
            K key = codec.readKey(ByteBuffer.wrap(e.getKey(), SpillDisk.PREFIX, e.getKey().length - SpillDisk.PREFIX));
            if (after != null && codec.order().compare(key, after) <= 0) {
                continue;
            }
            if (entries.size() < max) {
                entries.add(new AbstractMap.SimpleImmutableEntry<>(key, codec.value(e.getValue())));
            }
        }
        return entries;
    }

    private byte[] key(K key) {
        ByteBuffer bytes = ByteBuffer.allocate(SpillDisk.PREFIX + codec.keyLength(key));
        bytes.putLong(queue);
        codec.writeKey(key, bytes);
        return bytes.array();
    }

    private byte[] prefixOnly() {
        return ByteBuffer.allocate(SpillDisk.PREFIX).putLong(queue).array();
    }

    /** The head in order, then the tail from after the last key seen, so no entry shows twice or is missed as entries move. */
    private final class InOrder implements Iterator<Map.Entry<K, V>> {
        private final Iterator<Map.Entry<K, V>> inMemory = head.entrySet().iterator();
        private List<Map.Entry<K, V>> batch = List.of();
        private int next;
        private boolean onDisk;
        private boolean diskDone;
        private K lastSeen;
        private Map.Entry<K, V> ahead;

        @Override
        public boolean hasNext() {
            if (ahead == null) {
                ahead = advance();
            }
            return ahead != null;
        }

        @Override
        public Map.Entry<K, V> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Map.Entry<K, V> e = ahead;
            ahead = null;
            lastSeen = e.getKey();
            return e;
        }

        private Map.Entry<K, V> advance() {
            while (!onDisk && inMemory.hasNext()) {
                Map.Entry<K, V> e = inMemory.next();
                if (lastSeen == null || codec.order().compare(e.getKey(), lastSeen) > 0) {
                    return e;
                }
            }
            onDisk = true;
            if (disk == null) {
                return null;
            }
            if (next == batch.size()) {
                if (diskDone || tail.get() == 0) {
                    return null;
                }
                batch = readTail(lastSeen, 256);
                next = 0;
                diskDone = batch.size() < 256;
                if (batch.isEmpty()) {
                    return null;
                }
            }
            return batch.get(next++);
        }
    }
}
