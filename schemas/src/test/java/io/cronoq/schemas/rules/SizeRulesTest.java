package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.Gpu;
import io.cronoq.events.Preference;
import io.cronoq.events.Priority;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An input's size in parts is bounded, at every edge alike: how many labels, preferences and package
 * requirements a task gives, how long a requirement or a cancel's reason is, how many labels, GPUs
 * and packages a worker publishes. Each refusal names the field and states the limit.
 */
class SizeRulesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static TaskSubmitted task() {
        return new TaskSubmitted("t1", "inference", Map.of(), null, ByteBuffer.allocate(0), Priority.NORMAL,
                null, null, null, null, null, null, List.of(), null, T0, null, java.util.List.of(), java.util.List.of(), null, new java.util.ArrayList<>(), false, null);
    }

    private static Map<String, String> labels(int n) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            labels.put("label-" + i, "value-" + i);
        }
        return labels;
    }

    private static void refused(Optional<Violation> v, String field, String limit) {
        assertThat(v).as("refused").isPresent();
        assertThat(v.get().field()).isEqualTo(field);
        assertThat(v.get().message()).contains(limit);
    }

    @Test
    void aTaskRequiresAtMost64Labels() {
        TaskSubmitted t = task();
        t.setLabels(labels(Rules.MAX_LABELS));
        assertThat(Rules.checkSubmission(t)).isEmpty();

        t.setLabels(labels(10_000));
        refused(Rules.checkSubmission(t), "labels", "at most 64");
        refused(Rules.check(t), "labels", "at most 64");
    }

    @Test
    void aTaskGivesAtMost16PreferencesOfAtMost64LabelsEach() {
        TaskSubmitted t = task();
        t.setPreferences(new ArrayList<>(Collections.nCopies(Rules.MAX_PREFERENCES, new Preference(labels(1), 1))));
        assertThat(Rules.checkSubmission(t)).isEmpty();

        t.setPreferences(new ArrayList<>(Collections.nCopies(Rules.MAX_PREFERENCES + 1, new Preference(labels(1), 1))));
        refused(Rules.checkSubmission(t), "preferences", "at most 16");

        t.setPreferences(List.of(new Preference(labels(Rules.MAX_LABELS + 1), 1)));
        refused(Rules.checkSubmission(t), "preferences[0].labels", "at most 64");
    }

    @Test
    void aTaskGivesAtMost64PackageRequirementsOfAtMost256CharactersEach() {
        TaskSubmitted t = task();
        List<String> packages = new ArrayList<>();
        for (int i = 0; i < Rules.MAX_PACKAGES; i++) {
            packages.add("pkg" + i + ">=1");
        }
        t.setResources(new ResourceRequest(null, null, null, null, packages));
        assertThat(Rules.checkSubmission(t)).isEmpty();

        packages.add("one-too-many");
        refused(Rules.checkSubmission(t), "resources.packages", "at most 64");

        t.setResources(new ResourceRequest(null, null, null, null, List.of("numpy>=1," + "<2,".repeat(100) + "<3")));
        refused(Rules.checkSubmission(t), "resources.packages[0]", "at most 256");
    }

    @Test
    void aCancelsReasonIsAtMost1024Characters() {
        TaskCancelRequested cancel = new TaskCancelRequested("t1", "inference", "x".repeat(Rules.MAX_REASON_LENGTH),
                null, T0);
        assertThat(Rules.check(cancel)).isEmpty();

        cancel.setReason("x".repeat(Rules.MAX_REASON_LENGTH + 1));
        refused(Rules.check(cancel), "reason", "at most 1024");
    }

    @Test
    void aWorkerPublishesAtMost64LabelsAnd64GpusAnd4096Packages() {
        WorkerRegistered w = WorkerRegistered.newBuilder().setWorkerId("w1").setPool("inference").setSlots(1)
                .setLabels(labels(Rules.MAX_LABELS)).setRegisteredAt(T0).build();
        assertThat(Rules.check(w)).isEmpty();

        w.setLabels(labels(Rules.MAX_LABELS + 1));
        refused(Rules.check(w), "labels", "at most 64");

        w.setLabels(Map.of());
        Map<String, String> installed = new LinkedHashMap<>();
        for (int i = 0; i <= Rules.MAX_WORKER_PACKAGES; i++) {
            installed.put("pkg" + i, "1.0");
        }
        w.setResources(new WorkerResources(0L, 0L, 0L, List.of(), installed));
        refused(Rules.check(w), "resources.packages", "at most 4096");

        Gpu gpu = new Gpu(0, "a100", 1L << 30, 1L << 30);
        w.setResources(new WorkerResources(0L, 0L, 0L, Collections.nCopies(Rules.MAX_WORKER_GPUS + 1, gpu), Map.of()));
        refused(Rules.check(w), "resources.gpus", "at most 64");
    }
}
