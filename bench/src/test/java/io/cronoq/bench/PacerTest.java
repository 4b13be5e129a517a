package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The pacer stamps each item with its due time and says how late the latest one went. */
class PacerTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void aSendThatBlocksMakesTheNextItemsLateAndTheWorstSaysHowLate() {
        long start = System.nanoTime();
        List<Long> stamps = new ArrayList<>();
        Pacer.Lateness late = Pacer.run(0, 40, 1_000, start, start, (i, stamp) -> {
            stamps.add(stamp);
            if (i == 10) {
                sleep(50);
            }
        });

        assertThat(stamps).hasSize(40);
        assertThat(stamps.get(11) - stamps.get(10)).isEqualTo(MS);
        // Item 11 was due 1 ms after item 10, which kept the sender 50 ms.
        assertThat(late.worstNanos()).isGreaterThanOrEqualTo(49 * MS);
        assertThat(late.worstDueNanos()).isGreaterThanOrEqualTo(start);
    }

    @Test
    void onlyItemsDueOnceMeasuringBeganCountForTheWorst() {
        long start = System.nanoTime();
        Pacer.Lateness late = Pacer.run(0, 5, 1_000, start, start + TimeUnit.SECONDS.toNanos(1), (i, stamp) -> { });

        assertThat(late.worstDueNanos()).isEqualTo(-1);
        assertThat(late.worstNanos()).isZero();
    }

    @Test
    void theLastItemsLatenessIsKept() {
        long start = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
        // Every item was due a second ago or more: each goes at once, the last about a second late.
        long last = Pacer.run(0, 3, 1_000, start, start, (i, stamp) -> { }).lastNanos();

        assertThat(last).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1) - 3 * MS);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
