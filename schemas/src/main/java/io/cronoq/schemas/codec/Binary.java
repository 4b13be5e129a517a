package io.cronoq.schemas.codec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * The shapes the hand-written codecs share, each written with the calls Avro's writer makes for it and read as
 * Avro's reader reads it: a union of null and one type (null is branch 0), a timestamp-millis long as an
 * {@link Instant}, a map of strings, an array (one block, then the end marker; read into an {@link ArrayList}).
 */
final class Binary {

    private Binary() {
    }

    /** The most elements a collection is sized for before they are read: a block's count comes from the bytes. */
    static final int MAX_PRESIZE = 1_024;

    /**
     * A collection's first capacity for a block of {@code n}: the codecs read input topics too, and a
     * hostile count must not allocate gigabytes before the bytes run out (each element reads at least one).
     */
    private static int capacity(long n) {
        return (int) Math.min(Math.max(n, 0), MAX_PRESIZE);
    }

    static void instant(Encoder out, Instant value) throws IOException {
        out.writeLong(value.toEpochMilli());
    }

    static Instant instant(Decoder in) throws IOException {
        return Instant.ofEpochMilli(in.readLong());
    }

    /** Writes the union's branch: 0 for null (returns false, nothing more to write), else 1 (returns true). */
    static boolean present(Encoder out, Object value) throws IOException {
        if (value == null) {
            out.writeIndex(0);
            out.writeNull();
            return false;
        }
        out.writeIndex(1);
        return true;
    }

    /** Reads the union's branch of a [null, T] union: whether a value follows. */
    static boolean present(Decoder in) throws IOException {
        int branch = in.readIndex();
        if (branch == 0) {
            in.readNull();
            return false;
        }
        if (branch != 1) {
            throw new IOException("union branch " + branch + " of a union of two");
        }
        return true;
    }

    static void optionalString(Encoder out, String value) throws IOException {
        if (present(out, value)) {
            out.writeString(value);
        }
    }

    static String optionalString(Decoder in) throws IOException {
        return present(in) ? in.readString() : null;
    }

    static void optionalLong(Encoder out, Long value) throws IOException {
        if (present(out, value)) {
            out.writeLong(value);
        }
    }

    static Long optionalLong(Decoder in) throws IOException {
        return present(in) ? in.readLong() : null;
    }

    static void optionalInt(Encoder out, Integer value) throws IOException {
        if (present(out, value)) {
            out.writeInt(value);
        }
    }

    static Integer optionalInt(Decoder in) throws IOException {
        return present(in) ? in.readInt() : null;
    }

    static void optionalInstant(Encoder out, Instant value) throws IOException {
        if (present(out, value)) {
            out.writeLong(value.toEpochMilli());
        }
    }

    static Instant optionalInstant(Decoder in) throws IOException {
        return present(in) ? Instant.ofEpochMilli(in.readLong()) : null;
    }

    static void optionalBytes(Encoder out, ByteBuffer value) throws IOException {
        if (present(out, value)) {
            out.writeBytes(value);
        }
    }

    static ByteBuffer optionalBytes(Decoder in) throws IOException {
        return present(in) ? in.readBytes(null) : null;
    }

    static void strings(Encoder out, Map<String, String> map) throws IOException {
        out.writeMapStart();
        out.setItemCount(map.size());
        for (Map.Entry<String, String> e : map.entrySet()) {
            out.startItem();
            out.writeString(e.getKey());
            out.writeString(e.getValue());
        }
        out.writeMapEnd();
    }

    static Map<String, String> strings(Decoder in) throws IOException {
        long n = in.readMapStart();
        Map<String, String> map = new HashMap<>(capacity(n));
        for (; n > 0; n = in.mapNext()) {
            for (long i = 0; i < n; i++) {
                map.put(in.readString(), in.readString());
            }
        }
        return map;
    }

    static void byteMap(Encoder out, Map<String, ByteBuffer> map) throws IOException {
        out.writeMapStart();
        out.setItemCount(map.size());
        for (Map.Entry<String, ByteBuffer> e : map.entrySet()) {
            out.startItem();
            out.writeString(e.getKey());
            out.writeBytes(e.getValue().duplicate());
        }
        out.writeMapEnd();
    }

    static Map<String, ByteBuffer> byteMap(Decoder in) throws IOException {
        long n = in.readMapStart();
        Map<String, ByteBuffer> map = new HashMap<>(capacity(n));
        for (; n > 0; n = in.mapNext()) {
            for (long i = 0; i < n; i++) {
                map.put(in.readString(), in.readBytes(null));
            }
        }
        return map;
    }

    static <T> void array(Encoder out, List<T> items, Part<T> item) throws IOException {
        out.writeArrayStart();
        int n = items.size();
        out.setItemCount(n);
        for (int i = 0; i < n; i++) {
            out.startItem();
            item.write(items.get(i), out);
        }
        out.writeArrayEnd();
    }

    static <T> List<T> array(Decoder in, Part<T> item) throws IOException {
        long n = in.readArrayStart();
        List<T> items = new ArrayList<>(capacity(n));
        for (; n > 0; n = in.arrayNext()) {
            for (long i = 0; i < n; i++) {
                items.add(item.read(in));
            }
        }
        return items;
    }

    /** An enum constant by its index: the generated enums list their symbols in the schema's order. */
    static <E extends Enum<E>> E symbol(Decoder in, E[] symbols) throws IOException {
        int index = in.readEnum();
        if (index < 0 || index >= symbols.length) {
            throw new IOException("enum index " + index + " of " + symbols.length + " symbols");
        }
        return symbols[index];
    }

    static final Part<String> STRING = new Part<>() {
        @Override
        public void write(String value, Encoder out) throws IOException {
            out.writeString(value);
        }

        @Override
        public String read(Decoder in) throws IOException {
            return in.readString();
        }
    };
}
