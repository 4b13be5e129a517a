package io.cronoq.schemas;

import java.util.Objects;

import org.apache.kafka.common.serialization.Serde;

/**
 * A topic bound to the serdes of its keys and values, so that producing or consuming it with the wrong types does
 * not compile. Get cronoq's topics from {@link Topics}.
 */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde) {

    /** Checks that nothing is missing. */
    public Topic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(keySerde, "keySerde");
        Objects.requireNonNull(valueSerde, "valueSerde");
    }

    @Override
    public String toString() {
        return name;
    }
}
