package io.cronoq.agent.process;

import io.cronoq.agent.CancellationSignal;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one child process per call under the agent's ceilings: writes the input to its stdin, keeps the tails of
 * its stdout and stderr, and waits for it under a wall-clock timeout and a cancellation signal. A child that
 * blows its memory ceiling or its timeout, or whose attempt is cancelled, is killed with everything it started
 * (its own session and, with a cgroup ceiling, its cgroup); its neighbours are untouched. Nothing it started
 * outlives the call. Thread-safe: calls run side by side.
 */
public final class ChildProcessRunner {

    /** How the child ended. */
    public enum Ending {
        /** It exited by itself (any exit code). */
        EXITED,
        /** It went over the memory ceiling. */
        MEMORY_CEILING,
        /** It ran past the wall-clock timeout and was killed. */
        TIMEOUT,
        /** Its attempt was cancelled and it was killed. */
        CANCELLED
    }

    /**
     * What happened to one child.
     *
     * @param ending     how it ended
     * @param exitCode   its exit code (128 + signal when a signal ended it)
     * @param stdoutTail the last bytes it wrote to stdout
     * @param stderrTail the last bytes it wrote to stderr, as text
     * @param timeout    the wall-clock timeout it ran under, or {@code null}
     */
    public record Outcome(Ending ending, int exitCode, byte[] stdoutTail, String stderrTail, Duration timeout) {

        /** Whether the child exited by itself with code 0. */
        public boolean succeeded() {
            return ending == Ending.EXITED && exitCode == 0;
        }
    }

    /** Bytes of stdout kept (the result of a successful attempt). */
    public static final int STDOUT_TAIL_BYTES = 16 * 1024;
    /** Bytes of stderr kept (the error of a failed attempt). */
    public static final int STDERR_TAIL_BYTES = 4 * 1024;

    private static final Logger log = LoggerFactory.getLogger(ChildProcessRunner.class);
    private static final AtomicInteger IO_THREADS = new AtomicInteger();

    private final MemoryCeiling memoryCeiling;
    private final Path workDir;
    private final ChildEnvironment environment;
    private final ChildUser user;
    private final ExecutorService io = Executors.newCachedThreadPool(runnable -> {
        Thread t = new Thread(runnable, "cronoq-child-io-" + IO_THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    /**
     * A runner whose children inherit the agent's whole environment: for an agent that holds no secret.
     *
     * @param memoryCeiling the per-child memory ceiling, or {@code null} for none
     * @param workDir       the children's working directory
     */
    public ChildProcessRunner(MemoryCeiling memoryCeiling, Path workDir) {
        this(memoryCeiling, workDir, ChildEnvironment.inheritAll(), ChildUser.agentsOwn());
    }

    /**
     * @param memoryCeiling the per-child memory ceiling, or {@code null} for none
     * @param workDir       the children's working directory
     * @param environment   what the children see of the agent's environment (never its secret)
     * @param user          the account the children run as
     */
    public ChildProcessRunner(MemoryCeiling memoryCeiling, Path workDir, ChildEnvironment environment, ChildUser user) {
        this.memoryCeiling = memoryCeiling;
        this.workDir = Objects.requireNonNull(workDir, "workDir");
        this.environment = Objects.requireNonNull(environment, "environment");
        this.user = Objects.requireNonNull(user, "user");
    }

    /** The memory ceiling, or {@code null}. */
    public MemoryCeiling memoryCeiling() {
        return memoryCeiling;
    }

    /**
     * Runs {@code command} to its end.
     *
     * @param name    names the child in logs and cgroups (e.g. the task and attempt)
     * @param env     the attempt's variables, added to what the child sees of the agent's environment
     * @param stdin   bytes written to the child's stdin, which is then closed
     * @param timeout the wall-clock ceiling, or {@code null} for none
     * @param cancel  when it fires, the child is killed and the outcome is {@link Ending#CANCELLED}
     * @throws IOException when the child cannot be started (e.g. the command does not exist)
     */
    public Outcome run(String name, List<String> command, Map<String, String> env, byte[] stdin, Duration timeout,
                       CancellationSignal cancel) throws IOException {
        MemoryCeiling.Confinement confinement = memoryCeiling == null ? null : memoryCeiling.confine(name);
        try {
            // Innermost the change of user, so the ceiling is set up with the agent's rights first.
            List<String> asUser = user.wrap(command);
            List<String> full = ProcessTrees.inOwnSession(confinement == null ? asUser : confinement.wrap(asUser));
            ProcessBuilder builder = new ProcessBuilder(full).directory(workDir.toFile());
            // Built, not inherited: the child must not see the agent's signing secret.
            Map<String, String> childEnv = builder.environment();
            childEnv.clear();
            childEnv.putAll(environment.build(env));
            Process process = builder.start();
            log.debug("Started {} as pid {}: {}", name, process.pid(), full);
            OutputTail out = new OutputTail(STDOUT_TAIL_BYTES);
            OutputTail err = new OutputTail(STDERR_TAIL_BYTES);
            Future<?> writer = io.submit(() -> feed(process.getOutputStream(), stdin));
            Future<?> outReader = io.submit(() -> {
                out.drain(process.getInputStream());
                return null;
            });
            Future<?> errReader = io.submit(() -> {
                err.drain(process.getErrorStream());
                return null;
            });
            AtomicBoolean cancelled = new AtomicBoolean();
            cancel.onCancel(() -> {
                cancelled.set(true);
                kill(process, confinement);
            });
            boolean timedOut = waitFor(process, timeout, cancelled, confinement);
            // Whatever the child left running in the background dies with the attempt.
            kill(process, confinement);
            finish(writer, name, "stdin");
            finish(outReader, name, "stdout");
            finish(errReader, name, "stderr");
            // Read or given up on: a stream a leftover grandchild still holds open is let go here.
            closeStreams(process);
            int exit = process.exitValue();
            String stderr = err.text();
            Ending ending;
            if (cancelled.get()) {
                ending = Ending.CANCELLED;
            } else if (timedOut) {
                ending = Ending.TIMEOUT;
            } else if (confinement != null && confinement.exceeded(exit, stderr)) {
                ending = Ending.MEMORY_CEILING;
            } else {
                ending = Ending.EXITED;
            }
            return new Outcome(ending, exit, out.bytes(), stderr, timeout);
        } finally {
            if (confinement != null) {
                confinement.close();
            }
        }
    }

    /** Waits for the child; returns whether it ran out of time (and was killed). */
    private boolean waitFor(Process process, Duration timeout, AtomicBoolean cancelled,
                            MemoryCeiling.Confinement confinement) {
        boolean interrupted = false;
        boolean timedOut = false;
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    timedOut = true;
                    kill(process, confinement);
                    process.waitFor();
                    break;
                }
                if (process.waitFor(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS)) {
                    break;
                }
            } catch (InterruptedException e) {
                // The attempt was aborted: the child dies now; the interrupt is passed on once it is gone.
                interrupted = true;
                cancelled.set(true);
                kill(process, confinement);
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return timedOut;
    }

    private static void kill(Process process, MemoryCeiling.Confinement confinement) {
        ProcessTrees.kill(process);
        if (confinement != null) {
            confinement.killAll();
        }
    }

    private static Void feed(OutputStream stdin, byte[] bytes) {
        try (OutputStream in = stdin) {
            in.write(bytes);
        } catch (IOException e) {
            // The child may exit (or close stdin) without reading it all: that is its business.
            log.debug("The child did not take all of its stdin: {}", e.toString());
        }
        return null;
    }

    private static void finish(Future<?> pump, String name, String stream) {
        try {
            pump.get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            pump.cancel(true);
            log.warn("The {} of {} was still open 5 s after it ended; its tail may be cut", stream, name);
        } catch (java.util.concurrent.ExecutionException e) {
            log.debug("Reading the {} of {} failed: {}", stream, name, e.getCause().toString());
        } catch (InterruptedException e) {
            pump.cancel(true);
            Thread.currentThread().interrupt();
        }
    }

    private static void closeStreams(Process process) {
        for (java.io.Closeable stream : List.of(process.getOutputStream(), process.getInputStream(),
                process.getErrorStream())) {
            try {
                stream.close();
            } catch (IOException e) {
                log.debug("Closing a stream of pid {} failed: {}", process.pid(), e.toString());
            }
        }
    }

    /** Stops the I/O threads; running children are not affected (their calls end as usual). */
    public void shutdown() {
        io.shutdown();
    }
}
