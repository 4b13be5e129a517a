package io.cronoq.scheduler.policy.store;

import io.cronoq.events.ParentCondition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A {@link DependencyStore} over any sorted map of strings to bytes that can list a key prefix (RocksDB,
 * a {@code TreeMap}). Every key starts with the pool and the task it belongs to, so forgetting a task is one
 * prefix: {@code <pool>/<task>/c/<childPool>/<childId>} for a child ({@link ParentCondition} ordinal),
 * {@code <pool>/<task>/r} for the task's result, {@code <pool>/<task>/p/<parentPool>/<parentId>} for a parent's
 * end it heard (a 0 byte, or a 1 byte then the result), {@code <pool>/<task>/u} for a task awaited before it is
 * known (its deadline, 8 bytes), {@code <pool>/<task>/n} for how many parents a blocked task still waits for
 * (4 bytes). '/' occurs in no pool and no task id.
 */
public final class KeyedDependencyStore implements DependencyStore {

    /** The sorted map underneath: only what this store put there. */
    public interface Sorted {
        byte[] get(String key);

        void put(String key, byte[] value);

        void delete(String key);

        /** The entries whose key starts with {@code prefix}, in key order. */
        List<Map.Entry<String, byte[]>> withPrefix(String prefix);
    }

    private static final ParentCondition[] CONDITIONS = ParentCondition.values();

    private final String pool;
    private final Sorted map;

    public KeyedDependencyStore(String pool, Sorted map) {
        this.pool = pool;
        this.map = map;
    }

    /** A store over a map in memory, for one pool (tests, benchmarks, simulations). */
    public static KeyedDependencyStore inMemory() {
        java.util.TreeMap<String, byte[]> entries = new java.util.TreeMap<>();
        return new KeyedDependencyStore("pool", new Sorted() {
            @Override
            public byte[] get(String key) {
                return entries.get(key);
            }

            @Override
            public void put(String key, byte[] value) {
                entries.put(key, value.clone());
            }

            @Override
            public void delete(String key) {
                entries.remove(key);
            }

            @Override
            public List<Map.Entry<String, byte[]>> withPrefix(String prefix) {
                List<Map.Entry<String, byte[]>> found = new ArrayList<>();
                // Copies: a TreeMap may reuse an entry object when another one is removed.
                entries.subMap(prefix, prefix + Character.MAX_VALUE).forEach((k, v) -> found.add(Map.entry(k, v)));
                return found;
            }
        });
    }

    private String task(String taskId) {
        return pool + "/" + taskId + "/";
    }

    @Override
    public void addChild(String parentId, Child child) {
        map.put(task(parentId) + "c/" + child.pool() + "/" + child.taskId(), new byte[] {(byte) child.when().ordinal()});
    }

    @Override
    public List<Child> children(String parentId) {
        String prefix = task(parentId) + "c/";
        List<Child> children = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : map.withPrefix(prefix)) {
            String rest = e.getKey().substring(prefix.length());
            int slash = rest.indexOf('/');
            children.add(new Child(rest.substring(0, slash), rest.substring(slash + 1), CONDITIONS[e.getValue()[0]]));
        }
        return children;
    }

    @Override
    public void dropChildren(String parentId) {
        for (Map.Entry<String, byte[]> e : map.withPrefix(task(parentId) + "c/")) {
            map.delete(e.getKey());
        }
    }

    @Override
    public void putResult(String taskId, ByteBuffer result) {
        ByteBuffer b = result.duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        map.put(task(taskId) + "r", bytes);
    }

    @Override
    public ByteBuffer result(String taskId) {
        byte[] bytes = map.get(task(taskId) + "r");
        return bytes == null ? null : ByteBuffer.wrap(bytes);
    }

    @Override
    public boolean heard(String childId, Heard parent) {
        String key = task(childId) + "p/" + parent.parentPool() + "/" + parent.parentId();
        if (map.get(key) != null) {
            return false;
        }
        byte[] value;
        if (parent.result() == null) {
            value = new byte[] {0};
        } else {
            ByteBuffer r = parent.result().duplicate();
            value = new byte[r.remaining() + 1];
            value[0] = 1;
            r.get(value, 1, value.length - 1);
        }
        map.put(key, value);
        return true;
    }

    @Override
    public List<Heard> heard(String childId) {
        String prefix = task(childId) + "p/";
        List<Heard> heard = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : map.withPrefix(prefix)) {
            String rest = e.getKey().substring(prefix.length());
            int slash = rest.indexOf('/');
            byte[] v = e.getValue();
            ByteBuffer result = v[0] == 0 ? null : ByteBuffer.wrap(v, 1, v.length - 1).slice();
            heard.add(new Heard(rest.substring(0, slash), rest.substring(slash + 1), result));
        }
        return heard;
    }

    @Override
    public Integer unmet(String childId) {
        byte[] bytes = map.get(task(childId) + "n");
        return bytes == null ? null : ByteBuffer.wrap(bytes).getInt();
    }

    @Override
    public void putUnmet(String childId, int unmet) {
        map.put(task(childId) + "n", ByteBuffer.allocate(4).putInt(unmet).array());
    }

    @Override
    public void await(String parentId, long deadlineMillis) {
        map.put(task(parentId) + "u", java.nio.ByteBuffer.allocate(8).putLong(deadlineMillis).array());
    }

    @Override
    public Long awaitedUntil(String parentId) {
        byte[] bytes = map.get(task(parentId) + "u");
        return bytes == null ? null : ByteBuffer.wrap(bytes).getLong();
    }

    @Override
    public void stopAwaiting(String parentId) {
        map.delete(task(parentId) + "u");
    }

    @Override
    public void forget(String taskId) {
        for (Map.Entry<String, byte[]> e : map.withPrefix(task(taskId))) {
            map.delete(e.getKey());
        }
    }
}
