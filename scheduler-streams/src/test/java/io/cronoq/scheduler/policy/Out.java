package io.cronoq.scheduler.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/** Reading decisions in tests: the events of one type, the one event of a type, who got what. */
final class Out {

    private Out() {}

    static <T extends SpecificRecord> List<T> all(List<Decision> decisions, Class<T> type) {
        List<T> found = new ArrayList<>();
        for (Decision d : decisions) {
            if (type.isInstance(d.event())) {
                found.add(type.cast(d.event()));
            }
        }
        return found;
    }

    static <T extends SpecificRecord> T only(List<Decision> decisions, Class<T> type) {
        List<T> found = all(decisions, type);
        assertThat(found).as("%s in %s", type.getSimpleName(), decisions).hasSize(1);
        return found.get(0);
    }

    static AttemptAssigned assigned(List<Decision> decisions) {
        return only(decisions, AttemptAssigned.class);
    }

    /** The worker ids the decisions assigned to, in order. */
    static List<String> workersOf(List<Decision> decisions) {
        List<String> workers = new ArrayList<>();
        for (AttemptAssigned a : all(decisions, AttemptAssigned.class)) {
            workers.add(a.getWorkerId());
        }
        return workers;
    }

    /** Event type names, in order: the shape of an answer. */
    static List<String> types(List<Decision> decisions) {
        List<String> types = new ArrayList<>();
        for (Decision d : decisions) {
            types.add(d.event().getSchema().getName());
        }
        return types;
    }
}
