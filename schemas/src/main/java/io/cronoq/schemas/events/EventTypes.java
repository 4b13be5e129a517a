package io.cronoq.schemas.events;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/** The lookup of an event's kind by its Avro class, shared by the kinds of inputs and of journal entries. */
final class EventTypes {

    private EventTypes() {}

    static <K> Map<Class<?>, K> index(K[] kinds, Function<K, Class<?>> type) {
        Map<Class<?>, K> byType = new HashMap<>();
        for (K kind : kinds) {
            byType.put(type.apply(kind), kind);
        }
        return Map.copyOf(byType);
    }

    /** The kind of {@code event}, or {@code null} for null or an object of no kind. */
    static <K> K find(Map<Class<?>, K> byType, Object event) {
        return event == null ? null : byType.get(event.getClass());
    }
}
