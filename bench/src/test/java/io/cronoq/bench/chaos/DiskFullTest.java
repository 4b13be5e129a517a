package io.cronoq.bench.chaos;

import static io.cronoq.bench.chaos.ChaosRun.fmt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.WorkerRegistered;
import io.cronoq.bench.JournalWatcher;
import io.cronoq.bench.SchedulerChild;
import io.cronoq.bench.SchedulerProcess;
import io.cronoq.bench.SimulatedWorkers;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state directory of one of two scheduler instances (same application id) is a small tmpfs, shared with another
 * writer that fills it under load. The instance's state is under 1 MiB at this load and grows by tens of KiB a
 * minute, so the test does not wait for RocksDB to fill the volume by itself: a file takes every free byte, and the
 * instance's next RocksDB flush (small memtables, {@link SmallMemtables}, so it comes within seconds) finds no space.
 * That instance must stop —
 * an ERROR naming its state directory, Kafka Streams shut down, the process ended non-zero — and the other takes
 * its pools: every acknowledged task finished exactly once, nothing assigned twice, no slot left busy. Needs root
 * to mount the tmpfs; skipped otherwise.
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DiskFullTest {

    private static final Logger log = LoggerFactory.getLogger(DiskFullTest.class);
    private static final int PARTITIONS = 4;
    private static final int TMPFS_MIB = 8;
    private static final Duration PROGRESS = Duration.ofSeconds(90);

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    @Test
    void anInstanceWhoseStateDirectoryFillsStopsAndTheOtherTakesItsPools() throws Exception {
        Path small = Files.createDirectories(dir.resolve("small"));
        mountTmpfs(small);
        String run = "full-" + UUID.randomUUID().toString().substring(0, 6);
        String bootstrap = broker.bootstrapServers();
        Path logs = ChaosRun.logs();
        SchedulerConfig config = ChaosRun.config(bootstrap, run, dir.resolve("state-check"), PARTITIONS);
        SchemaRegistry registry = SchedulerApp.registry(config);
        List<SchedulerProcess> children = new ArrayList<>();
        try {
            Topics topics = ChaosRun.topics(config, registry);
            List<String> pools = List.of(run + "-a", run + "-b", run + "-c", run + "-d");
            List<WorkerRegistered> fleet = ChaosRun.fleet(run, pools, 8, 3);
            Path fullDir = small.resolve("state");
            Map<String, ConcurrentLinkedQueue<Long>> assignedAt = new ConcurrentHashMap<>();
            try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 200);
                 JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry)) {
                workers.onAssigned(a -> assignedAt.computeIfAbsent(a.getPool(), p -> new ConcurrentLinkedQueue<>())
                        .add(System.nanoTime()));
                SchedulerProcess full = child(config, fullDir, true, logs.resolve(run + "-full.log"), children);
                full.awaitRunning(PROGRESS);
                SchedulerProcess other = child(config, dir.resolve("state-other"), false,
                        logs.resolve(run + "-other.log"), children);
                other.awaitRunning(PROGRESS);
                await("two instances share the group").atMost(PROGRESS).until(() -> ChaosRun.members(bootstrap, run) == 2);
                ChaosRun.acceptFleet(workers, fleet, PROGRESS);

                try (SteadyLoad load = SteadyLoad.start(bootstrap, topics, run, pools, 50)) {
                    progress(journal, 40, "with two instances");

                    // When another writer on the same volume fills it.
                    FileStore store = Files.getFileStore(small);
                    log.info("Before the filler the volume has {} KiB in use; the state directory's files: {}",
                            (store.getTotalSpace() - store.getUsableSpace()) >> 10, usage(fullDir));
                    long filler = fill(small.resolve("filler"), Long.MAX_VALUE);
                    long filledAt = System.nanoTime();
                    log.info("Filled {} with {} KiB; {} KiB left", small, filler >> 10, store.getUsableSpace() >> 10);
                    boolean stopped = waitFor(full, Duration.ofSeconds(90));
                    long exitedAt = System.nanoTime();
                    assertThat(stopped).as("the instance with the full state directory stopped (log: "
                            + full.logFile() + ")").isTrue();
                    assertThat(full.exitCode()).as("its exit code").hasValue(SchedulerChild.EXIT_FAILED);
                    String fullLog = Files.readString(full.logFile(), StandardCharsets.UTF_8);
                    assertThat(fullLog).as("its log names the state directory")
                            .contains("The state directory " + fullDir.toAbsolutePath().normalize() + " is full");
                    assertThat(fullLog).contains("No space left on device");

                    // Then the other instance schedules every pool again.
                    long resumed = await("every pool is scheduled again").atMost(PROGRESS)
                            .pollInterval(Duration.ofMillis(50)).until(() -> resumedAfter(assignedAt, pools, exitedAt),
                                    t -> t >= 0);
                    long longestGap = longestGap(assignedAt, pools, filledAt);
                    progress(journal, 40, "after the instance stopped");
                    load.stop();
                    List<String> submitted = load.submitted();
                    ChaosRun.awaitAllFinished(journal, submitted, Duration.ofMinutes(2));

                    ChaosRun.Tally tally = ChaosRun.Tally.of(bootstrap, topics, submitted);
                    JournalVerdict verdict = tally.verdict();
                    log.info("Disk full verdict: the instance stopped {} s after the volume was filled (exit {}); "
                                    + "every pool scheduled again {} s after it exited; longest gap without an "
                                    + "assignment in a pool {} s; {} tasks acknowledged, lost {}, duplicated {}, "
                                    + "stuck {}; {} attempt(s) re-queued as LOST",
                            fmt(exitedAt - filledAt), full.exitCode().orElse(-1), fmt(resumed), fmt(longestGap),
                            submitted.size(), tally.lost(), tally.duplicated(), tally.stuck(), verdict.lost().size());
                    assertThat(load.failures()).as("submissions the broker refused").isZero();
                    assertThat(tally.lost()).as("acknowledged tasks that never succeeded").isZero();
                    assertThat(verdict.succeededPerTask()).containsOnlyKeys(submitted);
                    assertThat(tally.duplicated()).as("duplicates: " + verdict).isZero();
                    assertThat(tally.stuck()).as("tasks not finished or slots still busy").isZero();
                    assertThat(other.state()).isEqualTo("RUNNING");
                }
            }
        } finally {
            children.forEach(SchedulerProcess::kill);
            registry.close();
            unmount(small);
        }
    }

    private static void mountTmpfs(Path where) throws InterruptedException {
        String out;
        int code;
        try {
            Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + TMPFS_MIB + "m", "tmpfs",
                    where.toString()).redirectErrorStream(true).start();
            out = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            code = mount.waitFor(30, TimeUnit.SECONDS) ? mount.exitValue() : -1;
        } catch (IOException e) {
            out = e.getMessage();
            code = -1;
        }
        Assumptions.assumeTrue(code == 0, "skipped: mounting a " + TMPFS_MIB + " MiB tmpfs on " + where
                + " needs root (or CAP_SYS_ADMIN) and failed (exit " + code + "): " + out);
    }

    private static void unmount(Path where) throws InterruptedException, IOException {
        Process umount = new ProcessBuilder("umount", "-l", where.toString()).redirectErrorStream(true).start();
        String out = new String(umount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!umount.waitFor(30, TimeUnit.SECONDS) || umount.exitValue() != 0) {
            log.warn("umount {} failed: {}", where, out);
        }
    }

    /** Writes up to {@code bytes} into {@code file}, stopping quietly when the volume is full; returns what it wrote. */
    private static long fill(Path file, long bytes) {
        byte[] block = new byte[64 * 1024];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(file)) {
            while (written < bytes) {
                int n = (int) Math.min(block.length, bytes - written);
                out.write(block, 0, n);
                written += n;
            }
        } catch (IOException e) {
            log.info("Filling {} stopped after {} KiB: {}", file, written >> 10, e.getMessage());
        }
        return written;
    }

    /** Total size of the files under {@code root} and the largest kinds of file (by name suffix), for the log. */
    private static String usage(Path root) throws IOException {
        Map<String, Long> bySuffix = new HashMap<>();
        long total = 0;
        try (var files = Files.walk(root)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                long size = Files.size(p);
                total += size;
                String name = p.getFileName().toString();
                String kind = name.startsWith("MANIFEST") ? "MANIFEST" : name.startsWith("OPTIONS") ? "OPTIONS"
                        : name.startsWith("LOG") ? "LOG" : name.contains(".") ? name.substring(name.lastIndexOf('.'))
                        : name;
                bySuffix.merge(kind, size, Long::sum);
            }
        }
        return (total >> 10) + " KiB: " + bySuffix.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                .map(e -> e.getKey() + " " + (e.getValue() >> 10) + " KiB").toList();
    }

    private static boolean waitFor(SchedulerProcess child, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (!child.alive()) {
                return true;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return !child.alive();
    }

    /** Nanoseconds from {@code since} until every pool had an assignment after it, or -1 while one has none. */
    private static long resumedAfter(Map<String, ConcurrentLinkedQueue<Long>> assignedAt, List<String> pools,
                                     long since) {
        long latest = 0;
        for (String pool : pools) {
            long first = assignedAt.getOrDefault(pool, new ConcurrentLinkedQueue<>()).stream()
                    .filter(t -> t > since).findFirst().orElse(-1L);
            if (first < 0) {
                return -1;
            }
            latest = Math.max(latest, first - since);
        }
        return latest;
    }

    /** The longest time, over the pools, between two assignments of a pool from shortly before {@code since}. */
    private static long longestGap(Map<String, ConcurrentLinkedQueue<Long>> assignedAt, List<String> pools,
                                   long since) {
        long longest = 0;
        for (String pool : pools) {
            long previous = -1;
            for (long t : assignedAt.getOrDefault(pool, new ConcurrentLinkedQueue<>())) {
                if (previous >= 0 && t > since) {
                    longest = Math.max(longest, t - previous);
                }
                previous = t;
            }
        }
        return longest;
    }

    private static SchedulerProcess child(SchedulerConfig config, Path stateDir, boolean smallMemtables, Path logFile,
                                          List<SchedulerProcess> children) {
        // cronoq's own failover settings apply (a 6 s session): the other instance takes the pools soon after.
        Map<String, String> extra = smallMemtables
                ? Map.of("rocksdb.config.setter", SmallMemtables.class.getName()) : Map.of();
        return ChaosRun.child(config, stateDir, extra, logFile, children);
    }

    private static void progress(JournalWatcher journal, int tasks, String when) {
        ChaosRun.progress(journal, tasks, when, PROGRESS);
    }
}
