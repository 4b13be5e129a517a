package io.cronoq.schemas;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Conversion;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Builds generated records with every field set to a non-default value (unions take their non-null branch), so
 * a round trip exercises every field. A union of records ("envelope") gets one sample per branch.
 */
final class SampleRecords {

    private static final Instant AT = Instant.parse("2026-11-29T08:00:00.123Z");

    private SampleRecords() {
    }

    /** One envelope per branch of its {@code event} union, each branch filled completely. */
    static <T extends SpecificRecord> List<T> everyBranchOf(Class<T> envelope) {
        SpecificData model = SpecificData.getForClass(envelope);
        Schema schema = model.getSchema(envelope);
        Schema union = schema.getField("event").schema();
        List<T> samples = new ArrayList<>();
        for (Schema branch : union.getTypes()) {
            T sample = filled(envelope);
            sample.put(schema.getField("event").pos(), value(model, branch, "event"));
            samples.add(sample);
        }
        return samples;
    }

    /** A record of the class with every field set. */
    @SuppressWarnings("unchecked")
    static <T extends SpecificRecord> T filled(Class<T> type) {
        SpecificData model = SpecificData.getForClass(type);
        return (T) value(model, model.getSchema(type), type.getSimpleName());
    }

    private static Object value(SpecificData model, Schema schema, String name) {
        LogicalType logicalType = schema.getLogicalType();
        if (logicalType != null) {
            Conversion<?> conversion = model.getConversionFor(logicalType);
            if (conversion != null && "timestamp-millis".equals(logicalType.getName())) {
                return AT.plusMillis(name.length());
            }
        }
        switch (schema.getType()) {
            case RECORD: {
                SpecificRecord record = (SpecificRecord) model.newRecord(null, schema);
                for (Schema.Field field : schema.getFields()) {
                    record.put(field.pos(), value(model, field.schema(), field.name()));
                }
                return record;
            }
            case UNION: {
                Schema branch = schema.getTypes().stream()
                        .filter(s -> s.getType() != Schema.Type.NULL).findFirst().orElseThrow();
                return value(model, branch, name);
            }
            case ENUM:
                List<String> symbols = schema.getEnumSymbols();
                return model.createEnum(symbols.get(symbols.size() - 1), schema);
            case ARRAY:
                return new ArrayList<>(List.of(value(model, schema.getElementType(), name + "-item")));
            case MAP: {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put(name + "-key", value(model, schema.getValueType(), name + "-value"));
                return map;
            }
            case STRING:
                return name + "-sample";
            case BYTES:
                return ByteBuffer.wrap((name + "-bytes").getBytes(StandardCharsets.UTF_8));
            case INT:
                return name.length() + 7;
            case LONG:
                return (long) name.length() * 1_000_000_007L;
            case DOUBLE:
                return name.length() / 8.0;
            case FLOAT:
                return name.length() / 4.0f;
            case BOOLEAN:
                return name.length() % 2 == 0;
            default:
                throw new IllegalArgumentException("No sample for " + schema.getType() + " (" + name + ")");
        }
    }
}
