package io.cronoq.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scheduler instance in a child JVM (running {@link SchedulerChild}) on this JVM's class path: so
 * its memory is its own, and so it can be killed hard ({@link #kill()}: no shutdown hook, no commit,
 * no clean leave of the group) and started again. Its output goes to a log file.
 */
public final class SchedulerProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SchedulerProcess.class);

    private final Process process;
    private final Path logFile;
    private final Writer stdin;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private volatile String state = "STARTING";
    private volatile Set<String> activeTasks = Set.of();
    private volatile Set<String> standbyTasks = Set.of();

    /**
     * The pause target the {@code cronoq} launcher gives every JVM it starts, for a scheduler started here to run
     * as the launcher runs it: G1's young collections more often and shorter than its default 200 ms target.
     */
    public static final String GC_PAUSE_TARGET = "-XX:MaxGCPauseMillis=20";

    private SchedulerProcess(Process process, Path logFile) {
        this.process = process;
        this.logFile = logFile;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readOutput, "child-" + process.pid() + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child scheduler.
     *
     * @param settings   its settings: {@code cronoq.*} keys and Kafka pass-through keys
     * @param jvmOptions e.g. {@code -Xmx512m}
     * @param logFile    where its output goes (appended)
     */
    public static SchedulerProcess start(Map<String, String> settings, List<String> jvmOptions, Path logFile) {
        List<String> args = new ArrayList<>();
        settings.forEach((k, v) -> args.add(k + "=" + v));
        try {
            Process process = ChildJvm.start(SchedulerChild.class, jvmOptions, args, logFile);
            log.info("Started a scheduler in child JVM {} (log: {})", process.pid(), logFile);
            return new SchedulerProcess(process, logFile);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a child JVM: " + e.getMessage(), e);
        }
    }

    private void readOutput() {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             Writer file = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                     StandardOpenOption.APPEND)) {
            String line;
            while ((line = out.readLine()) != null) {
                file.write(line);
                file.write('\n');
                file.flush();
                if (line.startsWith(SchedulerChild.PROTOCOL + "state ")) {
                    state = line.substring((SchedulerChild.PROTOCOL + "state ").length()).trim();
                } else if (line.startsWith(SchedulerChild.PROTOCOL + "tasks ")) {
                    for (String part : line.substring((SchedulerChild.PROTOCOL + "tasks ").length()).trim().split(" ")) {
                        int eq = part.indexOf('=');
                        Set<String> ids = eq < 0 || eq == part.length() - 1 ? Set.of()
                                : Set.of(part.substring(eq + 1).split(","));
                        if (part.startsWith("active=")) {
                            activeTasks = ids;
                        } else if (part.startsWith("standby=")) {
                            standbyTasks = ids;
                        }
                    }
                } else if (line.startsWith(SchedulerChild.PROTOCOL)) {
                    replies.add(line.substring(SchedulerChild.PROTOCOL.length()));
                }
            }
        } catch (IOException e) {
            log.debug("Output of child {} ended: {}", process.pid(), e.toString());
        }
        state = "EXITED";
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Appends the child's thread dump ({@code jcmd <pid> Thread.print}) to its log, for a run that
     * waited in vain on it; best effort: a failure to take it is logged, never thrown.
     */
    public void dumpThreads() {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(process.pid()), "Thread.print").redirectErrorStream(true).start();
            byte[] dump = jcmd.getInputStream().readAllBytes();
            jcmd.waitFor(30, TimeUnit.SECONDS);
            Files.write(logFile, dump, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            log.info("Thread dump of child {} appended to {}", process.pid(), logFile);
        } catch (IOException e) {
            log.warn("Could not take a thread dump of child {}: {}", process.pid(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Its exit code once it has ended, else empty. */
    public java.util.OptionalInt exitCode() {
        return process.isAlive() ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(process.exitValue());
    }

    /** Where its output goes. */
    public Path logFile() {
        return logFile;
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Its Kafka Streams state as last reported (STARTING before the first report, EXITED after the end). */
    public String state() {
        return state;
    }

    /** The ids of the active tasks it last reported (e.g. {@code 0_2}: subtopology 0, partition 2). */
    public Set<String> activeTasks() {
        return activeTasks;
    }

    /** The ids of the standby tasks it last reported. */
    public Set<String> standbyTasks() {
        return standbyTasks;
    }

    /** Returns once its Kafka Streams state is RUNNING. */
    public void awaitRunning(Duration timeout) {
        Waits.until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("the child scheduler " + pid() + " exited with " + process.exitValue()
                        + "; see " + logFile);
            }
            return state.equals("RUNNING");
        }, timeout, "the child scheduler " + pid() + " to run (log: " + logFile + ")");
    }

    /** Heap used after a full GC in the child, in bytes. */
    public long heapUsedAfterGc() {
        try {
            replies.clear();
            stdin.write("heap\n");
            stdin.flush();
            String reply = replies.poll(60, TimeUnit.SECONDS);
            if (reply == null || !reply.startsWith("heap ")) {
                throw new IllegalStateException("the child scheduler did not report its heap (got " + reply + ")");
            }
            return Long.parseLong(reply.substring("heap ".length()).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Its resident set size. */
    public OptionalLong rss() {
        return ProcessMemory.rss(process.pid());
    }

    /** Kills it at once (SIGKILL): no shutdown hook runs, nothing is committed or closed. */
    public void kill() {
        if (!process.isAlive()) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("Killed the child scheduler {}", process.pid());
    }

    /** Stops it cleanly (it closes Kafka Streams), or kills it when that takes over 60 s. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        try {
            stdin.write("stop\n");
            stdin.close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (IOException e) {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }
}
