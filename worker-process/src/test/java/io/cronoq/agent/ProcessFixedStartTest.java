package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.process.ChildProcessRunner;
import io.cronoq.agent.process.ProcessTaskHandler;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Fixed starts through the process agent's handler, without a broker: the child process is started at the
 * attempt's start time by the worker's clock, not before, and sees that time in {@code CRONOQ_START_AT}.
 */
// Alone: it checks that nothing starts during a quiet spell of wall-clock time.
@Isolated
@Timeout(30)
class ProcessFixedStartTest extends FixedStartFixture {

    @Test
    void theProcessAgentStartsTheChildAtTheStartTime(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve("started");
        core = newCore(new ProcessTaskHandler(List.of("sh", "-c", "printf %s \"$CRONOQ_START_AT\" > started; cat"),
                new ChildProcessRunner(null, dir), null));
        activate();
        core.onEvent(assigned("p1", START));
        awaitWaiting();

        clock.set(START.minusMillis(1));
        await().during(QUIET).atMost(QUIET.multipliedBy(3)).until(() -> !Files.exists(marker));

        clock.set(START);

        AttemptSucceeded done = sink.awaitEvent(AttemptSucceeded.class, "p1");
        assertThat(StandardCharsets.UTF_8.decode(done.getResult()).toString()).isEqualTo("payload of p1");
        assertThat(Files.readString(marker)).isEqualTo(Long.toString(START.toEpochMilli()));
        assertThat(sink.first(AttemptStarted.class).getAt()).isAfterOrEqualTo(START);
    }
}
