package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The first termination signal drains, the second stops at once, later ones change nothing. */
class TerminationSignalsTest {

    @Test
    void firstSignalDrainsSecondStopsAtOnce() {
        List<String> actions = new ArrayList<>();
        TerminationSignals signals = new TerminationSignals(() -> actions.add("drain"), () -> actions.add("stop"));

        signals.signalled("TERM");
        assertThat(actions).containsExactly("drain");
        signals.signalled("TERM");
        signals.signalled("INT");

        assertThat(actions).containsExactly("drain", "stop");
        assertThat(signals.received()).isEqualTo(3);
    }
}
