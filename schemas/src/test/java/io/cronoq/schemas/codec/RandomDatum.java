package io.cronoq.schemas.codec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Random generic data of any schema, reaching the edges a codec gets wrong: every union branch, empty, short and
 * long arrays and maps, empty and non-ASCII strings, the extremes of ints and longs, NaN and infinities.
 */
public final class RandomDatum {

    private static final String[] STRINGS = {"", "a", "gpu", "région-ü", "任务", "emoji 😀 end", "x".repeat(300)};
    private static final long[] LONGS = {0, 1, -1, 63, 64, -64, -65, Integer.MAX_VALUE, Integer.MIN_VALUE,
            Long.MAX_VALUE, Long.MIN_VALUE, 1_764_000_000_000L};
    private static final double[] DOUBLES = {0, -0.0, 1.5, 2.0, Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE};

    private final Random random;

    public RandomDatum(long start) {
        this.random = new Random(start);
    }

    public Object of(Schema schema) {
        switch (schema.getType()) {
            case RECORD: {
                GenericRecord record = new GenericData.Record(schema);
                for (Schema.Field field : schema.getFields()) {
                    record.put(field.pos(), of(field.schema()));
                }
                return record;
            }
            case ENUM:
                return new GenericData.EnumSymbol(schema,
                        schema.getEnumSymbols().get(random.nextInt(schema.getEnumSymbols().size())));
            case ARRAY: {
                int n = size();
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(of(schema.getElementType()));
                }
                return items;
            }
            case MAP: {
                int n = size();
                Map<String, Object> map = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    map.put(string() + "#" + i, of(schema.getValueType()));
                }
                return map;
            }
            case UNION:
                return of(schema.getTypes().get(random.nextInt(schema.getTypes().size())));
            case STRING:
                return string();
            case BYTES: {
                byte[] bytes = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(600)];
                random.nextBytes(bytes);
                return ByteBuffer.wrap(bytes);
            }
            case INT:
                return random.nextBoolean() ? (int) LONGS[random.nextInt(9)] : random.nextInt();
            case LONG:
                return random.nextBoolean() ? LONGS[random.nextInt(LONGS.length)] : random.nextLong();
            case DOUBLE:
                return random.nextBoolean() ? DOUBLES[random.nextInt(DOUBLES.length)] : random.nextDouble() * 1e6;
            case BOOLEAN:
                return random.nextBoolean();
            case NULL:
                return null;
            default:
                throw new IllegalArgumentException("no random data for " + schema.getType());
        }
    }

    /** Empty a third of the time, a few items most of the time, now and then hundreds (one long block). */
    private int size() {
        int roll = random.nextInt(20);
        return roll < 7 ? 0 : roll < 19 ? 1 + random.nextInt(3) : 100 + random.nextInt(300);
    }

    private String string() {
        return random.nextInt(3) == 0 ? Long.toString(random.nextLong(), 36) : STRINGS[random.nextInt(STRINGS.length)];
    }
}
