package io.cronoq.ops.replay;

import static io.cronoq.ops.replay.JournalRecorder.Run.fails;
import static io.cronoq.ops.replay.JournalRecorder.Run.succeeds;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.RetryPolicy;
import java.util.List;
import java.util.Map;

/** Small scripted journals whose every time is known, shared by the timeline and state tests. */
final class Fixtures {

    static final Map<String, String> NONE = Map.of();
    static final Map<String, String> GPU = Map.of("gpu", "a100");

    private Fixtures() {}

    /**
     * Pool batch: cpu-1 (2 slots) and gpu-1 (gpu=a100, 1 slot) at 0 s. At 1 s c1, c2, g1, g2 are
     * submitted: c1 and c2 go to cpu-1, g1 to gpu-1, g2 waits. All three start at 2 s. c3 comes at
     * 3 s, waits, and is cancelled at 4 s. g1 succeeds at 5 s and g2 takes its slot (started 6 s,
     * succeeds 12 s). c1 succeeds at 6 s. c2 fails at 8 s and its retry (it asks for no backoff)
     * runs on cpu-1 at once (started 9 s, succeeds 10 s).
     */
    static List<JournalEntry> smallDay() {
        return JournalRecorder.scripted()
                .script("c1", succeeds(1_000, 4_000))
                .script("c2", fails(1_000, 6_000), succeeds(1_000, 1_000))
                .script("g1", succeeds(1_000, 3_000))
                .script("g2", succeeds(1_000, 6_000))
                .register(0, "batch", "cpu-1", NONE, 2)
                .register(0, "batch", "gpu-1", GPU, 1)
                .submit(1_000, "batch", "c1", NONE)
                .submit(1_000, JournalRecorder.task(1_000, "batch", "c2")
                        .setRetry(RetryPolicy.newBuilder().setInitialBackoffMs(0).build()).build())
                .submit(1_000, "batch", "g1", GPU)
                .submit(1_000, "batch", "g2", GPU)
                .submit(3_000, "batch", "c3", NONE)
                .cancel(4_000, "batch", "c3")
                .record();
    }
}
