package io.cronoq.scheduler.policy.match;

import io.cronoq.events.ResourceRequest;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.Rules;
import java.util.Map;
import java.util.SortedMap;

/**
 * What a task requires of a worker, hard constraints only: the labels the worker must carry and
 * the resources it must have published ({@link ResourceNeed}). Tasks with the same requirement
 * form one requirement class and wait in one line; the class key names it in the waiting stores.
 *
 * <p>The class key is the canonical label key ({@code name=value} pairs sorted by name, joined with
 * {@code ,}; {@code ""} for none), followed, only when the task needs resources, by {@code |} and the
 * {@link ResourceNeed#key() resource key}: {@code gpu=a100,zone=eu|cpu=4000;mem=8589934592;pkg=torch>=2.0,<3}.
 * A task without a resource need has the same key as before resources existed. The key is
 * unambiguous (validated label names and values contain none of {@code = , |}, package
 * requirements no {@code ;}) and deterministic: the same requirement always has the same key, and
 * {@link #parse} reads it back. Immutable.
 */
public final class Requirement extends Keyed {

    private static final char RESOURCES = '|';

    private final LabelSet labels;
    private final ResourceNeed resources;

    private Requirement(LabelSet labels, ResourceNeed resources, String key) {
        super(key);
        this.labels = labels;
        this.resources = resources;
    }

    /** The requirement of these required labels and this (valid) request; {@code null} means none. */
    public static Requirement of(Map<String, String> labels, ResourceRequest request) {
        LabelSet set = LabelSet.of(labels);
        ResourceNeed need = ResourceNeed.of(request);
        return new Requirement(set, need, key(set.key(), need));
    }

    /** The requirement of a (valid) task. */
    public static Requirement of(TaskSubmitted task) {
        return of(task.getLabels(), task.getResources());
    }

    /** The class key of a (valid) task, without building the label set when it needs no resources. */
    public static String keyOf(TaskSubmitted task) {
        String labels = LabelSet.key(task.getLabels());
        ResourceRequest request = task.getResources();
        return request == null ? labels : key(labels, ResourceNeed.of(request));
    }

    /**
     * The requirement a class key names, e.g. one read from the waiting store.
     *
     * @throws IllegalArgumentException when the text is not a class key
     */
    public static Requirement parse(String classKey) {
        int bar = classKey.indexOf(RESOURCES);
        String labelKey = bar < 0 ? classKey : classKey.substring(0, bar);
        if (!labelKey.isEmpty()) {
            for (String pair : labelKey.split(",", -1)) {
                int eq = pair.indexOf('=');
                if (eq < 0 || !Rules.isLabelName(pair.substring(0, eq)) || !Rules.isLabelValue(pair.substring(eq + 1))) {
                    throw new IllegalArgumentException("'" + classKey + "' is not a class key: '" + pair
                            + "' is not a label name=value");
                }
            }
        }
        LabelSet labels = LabelSet.of(LabelSet.parse(labelKey).asMap()); // re-keyed: a non-canonical order shows
        ResourceNeed need = bar < 0 ? ResourceNeed.NONE : ResourceNeed.parse(classKey.substring(bar + 1));
        String canonical = key(labels.key(), need);
        if (!canonical.equals(classKey)) {
            throw new IllegalArgumentException("'" + classKey + "' is not a canonical class key; it would be '"
                    + canonical + "'");
        }
        return new Requirement(labels, need, canonical);
    }

    private static String key(String labelKey, ResourceNeed need) {
        return need.isEmpty() ? labelKey : labelKey + RESOURCES + need.key();
    }

    /** The labels a worker must carry, sorted by name; unmodifiable. */
    public SortedMap<String, String> labels() {
        return labels.asMap();
    }

    /** The resources a worker must have published. */
    public ResourceNeed resources() {
        return resources;
    }

    public LabelSet labelSet() {
        return labels;
    }

    /** In words: {@code gpu=a100, cpu 4, memory 8Gi}; {@code "nothing"} for none. */
    @Override
    public String toString() {
        String labelText = labels.key().isEmpty() ? "" : labels.key().replace(",", ", ");
        String need = resources.toString();
        if (labelText.isEmpty()) {
            return need.isEmpty() ? "nothing" : need;
        }
        return need.isEmpty() ? labelText : labelText + ", " + need;
    }
}
