package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.AttemptCancelledException;
import io.cronoq.agent.CancellationSignal;
import io.cronoq.agent.TaskContext;
import io.cronoq.agent.TaskFailedException;
import io.cronoq.agent.process.ChildProcessRunner.Ending;
import io.cronoq.agent.process.ChildProcessRunner.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/** One child per attempt: success, failure, timeout, cancellation and the memory ceiling, each killing only its own tree. */
// Alone: it bounds how soon a killed tree is gone, on the wall clock.
@Isolated
@Timeout(60)
class ChildProcessRunnerTest {

    private static final long MIB = 1024L * 1024L;
    /** Grows one line in memory to 600 MiB: tail keeps the whole line. Needs no interpreter. */
    private static final List<String> MEMORY_HOG = List.of("sh", "-c", "head -c 600M /dev/zero | tail");

    @TempDir
    Path dir;

    private ChildProcessRunner runner;

    @AfterEach
    void shutdown() {
        if (runner != null) {
            runner.shutdown();
        }
    }

    @Test
    void aChildExitingZeroSucceedsWithItsStdoutAndGetsThePayloadOnStdin() throws IOException {
        runner = new ChildProcessRunner(null, dir);
        Outcome outcome = runner.run("t1-1", List.of("sh", "-c", "cat; echo \" done $CRONOQ_TASK_ID\""),
                Map.of("CRONOQ_TASK_ID", "t1"), "hello".getBytes(StandardCharsets.UTF_8), null,
                new CancellationSignal());
        assertThat(outcome.succeeded()).isTrue();
        assertThat(new String(outcome.stdoutTail(), StandardCharsets.UTF_8)).isEqualTo("hello done t1\n");
    }

    @Test
    void aChildExitingNonZeroFailsWithTheExitCodeAndStderrTail() throws IOException {
        runner = new ChildProcessRunner(null, dir);
        Outcome outcome = runner.run("t1-1", List.of("sh", "-c", "echo 'bad input' >&2; exit 3"), Map.of(),
                new byte[0], null, new CancellationSignal());
        assertThat(outcome.ending()).isEqualTo(Ending.EXITED);
        assertThat(outcome.exitCode()).isEqualTo(3);
        assertThat(outcome.stderrTail()).isEqualTo("bad input\n");
    }

    @Test
    void aChildPastItsTimeoutIsKilledWithEverythingItStarted() throws IOException {
        runner = new ChildProcessRunner(null, dir);
        Path pid = dir.resolve("background.pid");
        Outcome outcome = runner.run("t1-1", List.of("sh", "-c", "sleep 60 & echo $! > " + pid + "; sleep 60"),
                Map.of(), new byte[0], Duration.ofMillis(500), new CancellationSignal());

        assertThat(outcome.ending()).isEqualTo(Ending.TIMEOUT);
        long background = Long.parseLong(Files.readString(pid).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(background).map(p -> !p.isAlive())
                .orElse(true));
    }

    @Test
    void aCancelledAttemptKillsItsChild() throws IOException {
        runner = new ChildProcessRunner(null, dir);
        CancellationSignal cancel = new CancellationSignal();
        CompletableFuture.runAsync(() -> {
            await().until(() -> Files.exists(dir.resolve("started")));
            cancel.cancel("revoked: cancelled");
        });
        Outcome outcome = runner.run("t1-1", List.of("sh", "-c", "touch started; sleep 60"), Map.of(), new byte[0],
                null, cancel);
        assertThat(outcome.ending()).isEqualTo(Ending.CANCELLED);
    }

    @Test
    void anAddressSpaceCeilingFailsAChildThatNeedsMore() throws IOException {
        runner = new ChildProcessRunner(new AddressSpaceCeiling(64 * MIB, MemoryCeilings.onPath("prlimit")), dir);
        Outcome hog = runner.run("hog", MEMORY_HOG, Map.of(), new byte[0], Duration.ofSeconds(30),
                new CancellationSignal());
        Outcome small = runner.run("small", List.of("sh", "-c", "echo fine"), Map.of(), new byte[0],
                Duration.ofSeconds(30), new CancellationSignal());
        assertThat(hog.ending()).as(hog.stderrTail()).isEqualTo(Ending.MEMORY_CEILING);
        assertThat(small.succeeded()).isTrue();
    }

    @Test
    void theChosenCeilingStopsAChildThatNeedsMoreAndItsMessageSaysWhichCeiling() {
        runner = new ChildProcessRunner(MemoryCeilings.select(64 * MIB, MemoryCeilings.Mechanism.AUTO), dir);
        ProcessTaskHandler handler = new ProcessTaskHandler(MEMORY_HOG, runner, Duration.ofSeconds(30));

        assertThatThrownBy(() -> handler.handle(context("hog")))
                .isInstanceOf(TaskFailedException.class)
                .hasMessageContaining("memory ceiling 64Mi exceeded")
                .satisfies(e -> assertThat(((TaskFailedException) e).retryable()).isFalse());
    }

    @Test
    void theHandlerReportsATimeoutWithItsLimitAndAnExitWithItsCode() {
        runner = new ChildProcessRunner(null, dir);
        ProcessTaskHandler slow = new ProcessTaskHandler(List.of("sleep", "30"), runner, Duration.ofMillis(300));
        ProcessTaskHandler failing = new ProcessTaskHandler(List.of("sh", "-c", "echo nope >&2; exit 7"), runner, null);
        ProcessTaskHandler env = new ProcessTaskHandler(List.of("sh", "-c",
                "printf '%s|%s|%s|%s' \"$CRONOQ_TASK_ID\" \"$CRONOQ_ATTEMPT\" \"$CRONOQ_POOL\" \"$CRONOQ_GROUP\""),
                runner, null);

        assertThatThrownBy(() -> slow.handle(context("x"))).isInstanceOf(TaskFailedException.class)
                .hasMessage("killed: wall-clock timeout 300ms exceeded");
        assertThatThrownBy(() -> failing.handle(context("x"))).isInstanceOf(TaskFailedException.class)
                .hasMessage("exit code 7: nope");
        assertThat(new String(uncheck(() -> env.handle(context("x"))), StandardCharsets.UTF_8))
                .isEqualTo("t1|2|inference|gpu=a100,zone=eu");
    }

    @Test
    void aCancelledHandlerEndsAsCancelledNotFailed() {
        runner = new ChildProcessRunner(null, dir);
        ProcessTaskHandler handler = new ProcessTaskHandler(List.of("sleep", "30"), runner, null);
        TaskContext ctx = context("x");
        ctx.cancellation().cancel("revoked: cancelled");
        assertThatThrownBy(() -> handler.handle(ctx)).isInstanceOf(AttemptCancelledException.class)
                .hasMessage("revoked: cancelled");
    }

    private interface Call {
        byte[] call() throws Exception;
    }

    private static byte[] uncheck(Call call) {
        try {
            return call.call();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static TaskContext context(String payload) {
        CancellationSignal cancel = new CancellationSignal();
        return new TaskContext() {
            @Override
            public String taskId() {
                return "t1";
            }

            @Override
            public int attempt() {
                return 2;
            }

            @Override
            public String pool() {
                return "inference";
            }

            @Override
            public String workerId() {
                return "w-1";
            }

            @Override
            public long generation() {
                return 1;
            }

            @Override
            public Map<String, String> group() {
                return Map.of("zone", "eu", "gpu", "a100");
            }

            @Override
            public byte[] payload() {
                return payload.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public Optional<Instant> deadline() {
                return Optional.empty();
            }

            @Override
            public Optional<Duration> timeout() {
                return Optional.empty();
            }

            @Override
            public CancellationSignal cancellation() {
                return cancel;
            }

            @Override
            public void progress(Double fraction, String message) {
            }
        };
    }
}
