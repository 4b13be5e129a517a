package io.cronoq.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Gauges that share one kind of row: each row is one thing (a pool, a tenant, a key) with its tags, and each gauge
 * reads its value off the thing. {@link #update} replaces every gauge's rows, so things that are gone disappear.
 */
final class GaugeFamily<T> {

    /** A thing and the tags of its row. */
    record Row<T>(Tags tags, T thing) {}

    /** A gauge and its value per row; a row whose value is {@code null} is left out. */
    private record Metric<T>(MultiGauge gauge, Function<T, Double> value) {}

    private final MeterRegistry registry;
    private final List<Metric<T>> metrics = new ArrayList<>();

    GaugeFamily(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Registers a gauge with a value for every row; {@code unit} may be null. */
    GaugeFamily<T> gauge(String name, String doc, String unit, ToDoubleFunction<T> value) {
        return add(MultiGauge.builder(name).description(doc).baseUnit(unit), value::applyAsDouble);
    }

    /** Registers a gauge that leaves out the rows whose value is {@code null}. */
    GaugeFamily<T> gaugeOrNone(String name, String doc, Function<T, Double> value) {
        return add(MultiGauge.builder(name).description(doc), value);
    }

    private GaugeFamily<T> add(MultiGauge.Builder builder, Function<T, Double> value) {
        metrics.add(new Metric<>(builder.register(registry), value));
        return this;
    }

    /** Replaces every gauge's rows with these, in this order. */
    void update(List<Row<T>> rows) {
        for (Metric<T> m : metrics) {
            List<MultiGauge.Row<?>> values = new ArrayList<>();
            for (Row<T> row : rows) {
                Double value = m.value().apply(row.thing());
                if (value != null) {
                    values.add(MultiGauge.Row.of(row.tags(), value));
                }
            }
            m.gauge().register(values, true);
        }
    }

    /** Seconds from {@code since} to {@code now}, never below 0; 0 when there is no {@code since}. */
    static double secondsSince(Instant since, Instant now) {
        return since == null ? 0 : Math.max(0, Duration.between(since, now).toMillis() / 1000.0);
    }
}
