package io.cronoq.scheduler.topology;

import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.TimerQueue.Timer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * How the index's entries are written to its {@link SpillDisk}, in bytes that sort as the entries do:
 * a long as 8 big-endian bytes with its sign bit flipped, a task id as its UTF-16 chars (the order of
 * {@link String#compareTo}).
 */
final class IndexCodecs {

    private IndexCodecs() {
    }

    /** A waiting line: place → task id. */
    static final SpillingMap.Codec<Place, String> LINE = new SpillingMap.Codec<>() {
        @Override
        public Comparator<Place> order() {
            return Comparator.naturalOrder();
        }

        @Override
        public void writeKey(Place place, ByteBuffer into) {
            into.putLong(place.rank() ^ Long.MIN_VALUE).putLong(place.sequence() ^ Long.MIN_VALUE);
        }

        @Override
        public int keyLength(Place place) {
            return 2 * Long.BYTES;
        }

        @Override
        public Place readKey(ByteBuffer from) {
            return new Place(from.getLong() ^ Long.MIN_VALUE, from.getLong() ^ Long.MIN_VALUE);
        }

        @Override
        public byte[] value(String taskId) {
            return taskId.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String value(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    /** The order of timers: earliest first, then by task id. */
    static final Comparator<Timer> TIMER_ORDER = Comparator.comparingLong(Timer::atMillis).thenComparing(Timer::taskId);

    /** A timer queue: the timer is the key, there is no value. */
    static final SpillingMap.Codec<Timer, Boolean> TIMERS = new SpillingMap.Codec<>() {
        private static final byte[] NONE = new byte[0];

        @Override
        public Comparator<Timer> order() {
            return TIMER_ORDER;
        }

        @Override
        public void writeKey(Timer timer, ByteBuffer into) {
            into.putLong(timer.atMillis() ^ Long.MIN_VALUE);
            String id = timer.taskId();
            for (int i = 0; i < id.length(); i++) {
                into.putChar(id.charAt(i));
            }
        }

        @Override
        public int keyLength(Timer timer) {
            return Long.BYTES + Character.BYTES * timer.taskId().length();
        }

        @Override
        public Timer readKey(ByteBuffer from) {
            long at = from.getLong() ^ Long.MIN_VALUE;
            char[] id = new char[from.remaining() / Character.BYTES];
            for (int i = 0; i < id.length; i++) {
                id[i] = from.getChar();
            }
            return new Timer(at, new String(id));
        }

        @Override
        public byte[] value(Boolean present) {
            return NONE;
        }

        @Override
        public Boolean value(byte[] bytes) {
            return Boolean.TRUE;
        }
    };
}
