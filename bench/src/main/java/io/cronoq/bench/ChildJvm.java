package io.cronoq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a child JVM on this JVM's own classpath, its output merged into one stream for the caller
 * to read, killed by a shutdown hook if this JVM ends without stopping it (a child left running
 * would go on against a broker that may be gone). The bench and the chaos tests run schedulers and
 * brokers this way.
 */
public final class ChildJvm {

    private static final Logger log = LoggerFactory.getLogger(ChildJvm.class);

    private ChildJvm() {}

    /**
     * Starts {@code mainClass} with {@code jvmOptions} and {@code args}; {@code logFile}'s folder is
     * created for the caller's copy of its output.
     */
    public static Process start(Class<?> mainClass, List<String> jvmOptions, List<String> args, Path logFile)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        Files.createDirectories(logFile.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        // A SIGKILL of this JVM still orphans the child: then its stdin closes, and a child that reads it stops.
        Thread reaper = new Thread(process::destroyForcibly, "child-" + process.pid() + "-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        process.onExit().thenRun(() -> {
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException e) {
                log.debug("Already shutting down: {}", e.toString());
            }
        });
        return process;
    }
}
