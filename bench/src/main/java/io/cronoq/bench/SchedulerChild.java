package io.cronoq.bench;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The main class of a scheduler in a child JVM ({@link SchedulerProcess}): starts one
 * {@link SchedulerApp} from {@code key=value} arguments ({@code cronoq.*} settings and Kafka
 * pass-through keys such as {@code linger.ms}), reports its Kafka Streams state on stdout as
 * {@code @cronoq state <STATE>} and the tasks it holds as {@code @cronoq tasks active=0_1,0_3 standby=0_0}
 * (each time either changes), answers {@code heap} on stdin with {@code @cronoq heap <bytes>} (heap
 * used after a full GC), stops cleanly on {@code stop} or when stdin closes (the parent died), and exits with
 * {@link #EXIT_FAILED} when Kafka Streams fails (state ERROR).
 */
public final class SchedulerChild {

    /** Prefix of every line of the protocol on stdout; everything else there is log. */
    public static final String PROTOCOL = "@cronoq ";

    /** The exit code when Kafka Streams failed (its state went to ERROR). */
    public static final int EXIT_FAILED = 3;

    private static final Logger log = LoggerFactory.getLogger(SchedulerChild.class);

    private SchedulerChild() {}

    public static void main(String[] args) throws IOException {
        Map<String, String> settings = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("argument '" + arg + "' is not key=value");
            }
            settings.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        PrintStream out = System.out;
        SchedulerApp app = SchedulerApp.start(SchedulerConfig.of(settings));
        Thread watcher = new Thread(() -> watchState(app.streams(), out), "child-state-watcher");
        watcher.setDaemon(true);
        watcher.start();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.equals("stop")) {
                if (line.equals("heap")) {
                    reply(out, "heap " + ProcessMemory.heapUsedAfterGc());
                }
            }
        } finally {
            app.close();
            reply(out, "stopped");
        }
    }

    private static void watchState(KafkaStreams streams, PrintStream out) {
        KafkaStreams.State last = null;
        String lastTasks = null;
        while (true) {
            KafkaStreams.State state = streams.state();
            if (state != last) {
                reply(out, "state " + state);
                last = state;
            }
            if (state == KafkaStreams.State.ERROR) {
                // The client was shut down by its exception handler (e.g. a full state directory): end non-zero.
                log.error("Kafka Streams failed; the child scheduler exits");
                streams.close(java.time.Duration.ofSeconds(10));
                System.exit(EXIT_FAILED);
            }
            String tasks = tasks(streams);
            if (!tasks.equals(lastTasks)) {
                reply(out, "tasks " + tasks);
                lastTasks = tasks;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                log.debug("State watcher interrupted");
                return;
            }
        }
    }

    private static String tasks(KafkaStreams streams) {
        TreeSet<String> active = new TreeSet<>();
        TreeSet<String> standby = new TreeSet<>();
        try {
            for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
                thread.activeTasks().forEach(t -> active.add(t.taskId().toString()));
                thread.standbyTasks().forEach(t -> standby.add(t.taskId().toString()));
            }
        } catch (RuntimeException e) {
            log.debug("No thread metadata yet: {}", e.toString());
        }
        return "active=" + String.join(",", active) + " standby=" + String.join(",", standby);
    }

    private static synchronized void reply(PrintStream out, String line) {
        out.println(PROTOCOL + line);
        out.flush();
    }
}
