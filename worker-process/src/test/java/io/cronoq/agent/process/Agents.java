package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.agent.CronoqWorker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import picocli.CommandLine;

/**
 * Process agents built from their command line, as {@code cronoq worker} builds them, on one scheduler's topics
 * (heartbeating every second): each is started and found ACTIVE, and all are stopped together.
 */
final class Agents implements AutoCloseable {

    private final String bootstrap;
    private final String prefix;
    private final List<WorkerCommand.Agent> started = new CopyOnWriteArrayList<>();

    Agents(String bootstrap, String prefix) {
        this.bootstrap = bootstrap;
        this.prefix = prefix;
    }

    /** Starts an agent with these arguments (after the connection's) and returns its worker, registered. */
    CronoqWorker start(String... args) {
        List<String> all = new ArrayList<>(List.of("--bootstrap", bootstrap, "--topic-prefix", prefix,
                "--heartbeat-interval", "1s", "--registration-timeout", "60s"));
        all.addAll(List.of(args));
        CommandLine cli = WorkerCommand.commandLine();
        cli.parseArgs(all.toArray(String[]::new));
        WorkerCommand.Agent agent = ((WorkerCommand) cli.getCommand()).agent();
        started.add(agent);
        CronoqWorker worker = agent.worker().start();
        assertThat(worker.state()).isEqualTo(CronoqWorker.State.ACTIVE);
        return worker;
    }

    /** Stops every agent started: its worker, then its children's runner. */
    @Override
    public void close() {
        for (WorkerCommand.Agent agent : started) {
            agent.worker().close();
            agent.runner().shutdown();
        }
        started.clear();
    }
}
