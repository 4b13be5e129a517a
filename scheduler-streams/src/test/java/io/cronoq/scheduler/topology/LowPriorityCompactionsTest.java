package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** A store opened with the setter flushes on threads the kernel runs at the lowest priority (Linux). */
class LowPriorityCompactionsTest {

    @Test
    void aFlushRunsOnAThreadOfTheLowestCpuPriority(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "threads' priorities are read from /proc");
        try (Options options = new Options().setCreateIfMissing(true)) {
            new LowPriorityCompactions().setConfig("tasks", options, Map.of());
            try (RocksDB db = RocksDB.open(options, dir.toString());
                 FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                for (int i = 0; i < 1_000; i++) {
                    db.put(("task-" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
                }
                db.flush(flush);

                List<Integer> flushThreads = niceOfThreads("rocksdb:high");
                assertThat(flushThreads).as("the flush ran on RocksDB's flush pool").isNotEmpty();
                assertThat(flushThreads).as("their nice values").containsOnly(19);
            }
        }
    }

    /** The nice value of each thread of this process whose name starts with {@code prefix}. */
    private static List<Integer> niceOfThreads(String prefix) throws IOException {
        List<Integer> nice = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue; // the thread ended
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (name.startsWith(prefix)) {
                    // The fields after the name start with the state (field 3); nice is field 19.
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    nice.add(Integer.parseInt(fields[16]));
                }
            }
        }
        return nice;
    }
}
