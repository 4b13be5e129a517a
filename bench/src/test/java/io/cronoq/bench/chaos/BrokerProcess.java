package io.cronoq.bench.chaos;

import io.cronoq.bench.ChildJvm;
import io.cronoq.kafka.LocalKafka;
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
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-node KRaft broker of {@link LocalKafka} in a child JVM, so a test can kill it hard (SIGKILL) and start
 * it again on the same ports and data directory. Its {@link #main} prints {@value #UP} once it serves clients and
 * stops cleanly on {@code stop} or when its stdin closes; its output goes to a log file.
 */
public final class BrokerProcess implements AutoCloseable {

    static final String UP = "@broker up";
    private static final Logger log = LoggerFactory.getLogger(BrokerProcess.class);

    private final Process process;
    private final CountDownLatch up = new CountDownLatch(1);
    private final Path logFile;

    private BrokerProcess(Process process, Path logFile) {
        this.process = process;
        this.logFile = logFile;
        Thread reader = new Thread(this::readOutput, "broker-" + process.pid() + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a broker child with its data in {@code dataDir} on 127.0.0.1:{@code port}; returns once it serves. */
    static BrokerProcess start(Path dataDir, int port, int controllerPort, Path logFile, Duration timeout) {
        try {
            Process process = ChildJvm.start(BrokerProcess.class, List.of("-Xmx512m", "-XX:+UseSerialGC"),
                    List.of(dataDir.toString(), String.valueOf(port), String.valueOf(controllerPort)), logFile);
            BrokerProcess broker = new BrokerProcess(process, logFile);
            log.info("Started a broker in child JVM {} on port {} (log: {})", process.pid(), port, logFile);
            if (!broker.up.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                broker.kill();
                throw new IllegalStateException("the broker child did not come up within " + timeout + "; see " + logFile);
            }
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a broker child JVM: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
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
                if (line.startsWith(UP)) {
                    up.countDown();
                }
            }
        } catch (IOException e) {
            log.debug("Output of broker child {} ended: {}", process.pid(), e.toString());
        }
    }

    long pid() {
        return process.pid();
    }

    /** Kills it at once (SIGKILL): nothing is flushed or closed; what it wrote stays in the page cache and on disk. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        log.info("Killed the broker child {}", process.pid());
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        try (Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
            in.write("stop\n");
        } catch (IOException e) {
            log.debug("Broker child {} stdin closed: {}", process.pid(), e.toString());
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            kill();
        }
    }

    /** Arguments: data directory, client port, controller port. */
    public static void main(String[] args) throws IOException {
        LocalKafka kafka = LocalKafka.start(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        System.out.println(UP + " " + kafka.bootstrapServers());
        System.out.flush();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.equals("stop")) {
                // only "stop" means anything
            }
        } finally {
            kafka.close();
        }
        System.exit(0);
    }
}
