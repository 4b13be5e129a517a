package io.cronoq.agent.process;

import io.cronoq.schemas.rules.Durations;
import io.cronoq.agent.CronoqWorker;
import io.cronoq.agent.RegistrationRejectedException;
import io.cronoq.agent.WorkerIds;
import io.cronoq.schemas.rules.InvalidInputException;
import io.cronoq.schemas.rules.PackageVersion;
import io.cronoq.schemas.rules.Quantities;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code worker}: the standalone agent. Registers a worker in a pool and runs each attempt it is given as a child
 * process of the command after {@code --}, under a per-child memory ceiling and wall-clock timeout. The first
 * SIGTERM (or Ctrl-C) drains it, a second one stops it at once. Bad input exits with code 2 and a message naming the
 * flag; a refused registration or a fenced id exits 1; a drained agent exits 0. Mountable as a subcommand.
 */
@Command(name = "worker", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = "Runs a cronoq worker agent: each attempt of the pool's tasks runs as a child process of "
                + "COMMAND, with the payload on stdin and CRONOQ_TASK_ID, CRONOQ_ATTEMPT, CRONOQ_POOL, CRONOQ_GROUP "
                + "in its environment. Exit 0 succeeds (stdout tail is the result); anything else fails.",
        footer = {"", "Example:", "  worker --pool inference --label gpu=a100 --slots 2 --memory-limit 8Gi "
                + "--timeout 30m -- python3 infer.py"})
public final class WorkerCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(WorkerCommand.class);

    @Spec
    private CommandSpec spec;

    @Option(names = "--bootstrap", defaultValue = "localhost:9092", paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    private String bootstrap;

    @Option(names = "--topic-prefix", defaultValue = "cronoq.", paramLabel = "PREFIX",
            description = "Prefix of cronoq's topics; the scheduler's (default: ${DEFAULT-VALUE}).")
    private String topicPrefix;

    @Option(names = "--id", paramLabel = "ID", description = "Worker id, unique per agent (default: host name-pid).")
    private String id;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A cronoq TOML file: its [worker] table (pool, labels, slots, bootstrap, memory-limit …, "
                    + "named like the flags) and cronoq.bootstrap.servers / cronoq.topic.prefix; flags override it.")
    private Path config;

    @Option(names = "--pool", paramLabel = "POOL", description = "The pool to work for (required, here or in --config).")
    private String pool;

    @Option(names = "--label", paramLabel = "NAME=VALUE",
            description = "A label of this worker; repeat for several. Workers with the same labels form a group.")
    private List<String> labels = new ArrayList<>();

    @Option(names = "--slots", paramLabel = "N", description = "Attempts run at once (default: the number of cores).")
    private Integer slots;

    @Option(names = "--address", paramLabel = "HOST[:PORT]",
            description = "The address told to the members of the gangs this worker runs, in CRONOQ_GANG_PEERS "
                    + "(default: the host name).")
    private String address;

    @Option(names = "--cpu", paramLabel = "CPU", description = "Publish this cpu instead of the cores detected (2, 0.5, 500m).")
    private String cpu;

    @Option(names = "--memory", paramLabel = "BYTES", description = "Publish this memory instead of the detected (8Gi, 512Mi).")
    private String memory;

    @Option(names = "--disk", paramLabel = "BYTES", description = "Publish this free disk instead of the work directory's.")
    private String disk;

    @Option(names = "--gpus", paramLabel = "N", description = "Publish N GPUs instead of those nvidia-smi reports (0 hides them).")
    private Integer gpus;

    @Option(names = "--gpu-memory", paramLabel = "BYTES", description = "Memory of each GPU --gpus adds beyond the detected ones.")
    private String gpuMemory;

    @Option(names = "--package", paramLabel = "NAME=VERSION", description = "An installed package to publish; repeat for several.")
    private List<String> packages = new ArrayList<>();

    @Option(names = "--memory-limit", paramLabel = "BYTES",
            description = "Memory ceiling of each child (64Mi, 8Gi); a child above it is killed alone.")
    private String memoryLimit;

    @Option(names = "--memory-mechanism", defaultValue = "auto", paramLabel = "auto|cgroup|rlimit",
            description = "How the memory ceiling is enforced: a cgroup per child, an address-space limit, or the "
                    + "first that works here (default: ${DEFAULT-VALUE}).")
    private String memoryMechanism;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "Wall-clock ceiling of each child (30s, 5m, 1h).")
    private String timeout;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Children's working directory, whose free disk is published (default: the current one).")
    private Path workDir;

    @Option(names = "--heartbeat-interval", defaultValue = "3s", paramLabel = "DURATION",
            description = "How often the agent says it is alive (default: ${DEFAULT-VALUE}).")
    private String heartbeatInterval;

    @Option(names = "--registration-timeout", defaultValue = "30s", paramLabel = "DURATION",
            description = "How long to wait for the scheduler's answer before carrying on waiting in the background "
                    + "(default: ${DEFAULT-VALUE}).")
    private String registrationTimeout;

    @Option(names = "--credential", paramLabel = "NAME",
            description = "Name of the scheduler's [[auth.tokens]] entry this worker signs its registration with "
                    + "(default: the --token-env variable's name, as the scheduler names entries).")
    private String credential;

    @Option(names = "--token-env", paramLabel = "VAR",
            description = "Environment variable holding the credential's secret; the registration is signed with it "
                    + "(HMAC-SHA256). Needed when the scheduler has [[auth.tokens]] configured.")
    private String tokenEnv;

    @Option(names = "--pass-env", paramLabel = "NAME",
            description = "Pass only this agent environment variable (or NAME* for a prefix) to each child, beside "
                    + "PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_*, TZ, TMPDIR, TERM; repeatable. Without it children "
                    + "get the agent's environment. The --token-env variable is never passed.")
    private List<String> passEnv = new ArrayList<>();

    @Option(names = "--run-as", paramLabel = "USER[:GROUP]",
            description = "Run each child as this user (the agent runs as root), so task code can read neither the "
                    + "agent's memory nor its environment, where the signing secret is.")
    private String runAs;

    /** Reads the agent's environment variables (a seam for tests). */
    private Supplier<Map<String, String>> env = System::getenv;

    @Option(names = "--kafka", paramLabel = "KEY=VALUE",
            description = "A Kafka client setting (security.protocol=SSL, sasl.*) or schema.registry.url; repeatable.")
    private List<String> kafka = new ArrayList<>();

    @Parameters(paramLabel = "COMMAND", description = "The command (and its arguments) each attempt runs; put it after --.")
    private List<String> command = new ArrayList<>();

    /** Sets one setting read from the config file, unless its flag was given (flags override the file). */
    private void applyFromFile(String flag, Object value) {
        var parsed = spec.commandLine().getParseResult();
        if (parsed != null && parsed.hasMatchedOption(flag)) {
            return;
        }
        switch (flag) {
            case "--bootstrap" -> bootstrap = value.toString();
            case "--topic-prefix" -> topicPrefix = value.toString();
            case "--id" -> id = value.toString();
            case "--pool" -> pool = value.toString();
            case "--label" -> labels = WorkerConfigFile.labelList(value);
            case "--slots" -> slots = WorkerConfigFile.integer(flag, value);
            case "--address" -> address = value.toString();
            case "--cpu" -> cpu = value.toString();
            case "--memory" -> memory = value.toString();
            case "--disk" -> disk = value.toString();
            case "--gpus" -> gpus = WorkerConfigFile.integer(flag, value);
            case "--memory-limit" -> memoryLimit = value.toString();
            case "--timeout" -> timeout = value.toString();
            case "--work-dir" -> workDir = Path.of(value.toString());
            case "--heartbeat-interval" -> heartbeatInterval = value.toString();
            case "--token-env" -> tokenEnv = value.toString();
            case "--credential" -> credential = value.toString();
            case "--pass-env" -> passEnv = WorkerConfigFile.stringList(flag, value);
            case "--run-as" -> runAs = value.toString();
            default -> throw usage("--config " + config + ": the [worker] table has no setting '" + flag.substring(2)
                    + "'; known: " + WorkerConfigFile.KNOWN);
        }
    }

    /** The validated setup of an agent: its worker (not started) and its child runner. */
    public record Agent(CronoqWorker worker, ChildProcessRunner runner) {
    }

    /** This command reading environment variables through {@code environment} (tests). */
    static CommandLine commandLine(Map<String, String> environment) {
        WorkerCommand command = new WorkerCommand();
        command.env = () -> environment;
        return configure(new CommandLine(command));
    }

    /** The command line of this command with cronoq's error handling (exit code 2, the flag named, a hint). */
    public static CommandLine commandLine() {
        return configure(new CommandLine(new WorkerCommand()));
    }

    /** Applies cronoq's parsing rules to a command line holding a {@link WorkerCommand} (also as a subcommand). */
    public static CommandLine configure(CommandLine cli) {
        cli.setStopAtPositional(true);
        cli.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println(ex.getMessage());
            err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for the options.");
            err.flush();
            return ex.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        return cli;
    }

    @Override
    public Integer call() {
        Agent agent = agent();
        CronoqWorker worker = agent.worker();
        TerminationSignals signals = new TerminationSignals(
                () -> {
                    log.info("Draining on request: finishing running attempts, taking nothing new "
                            + "(signal again to stop at once)");
                    worker.drain();
                },
                () -> worker.stopNow("stopped by a second signal"));
        signals.install();
        try {
            worker.start();
        } catch (RegistrationRejectedException e) {
            spec.commandLine().getErr().println(e.getMessage());
            agent.runner().shutdown();
            return 1;
        } catch (RuntimeException e) {
            log.error("Worker {} could not start", worker.id(), e);
            spec.commandLine().getErr().println("worker " + worker.id() + " could not start: " + e.getMessage());
            worker.close();
            agent.runner().shutdown();
            return 1;
        }
        CronoqWorker.State end = worker.terminated().join();
        agent.runner().shutdown();
        if (end != CronoqWorker.State.LEFT) {
            spec.commandLine().getErr().println("worker " + worker.id() + " ended " + end
                    + worker.endReason().map(r -> ": " + r).orElse(""));
            return 1;
        }
        return 0;
    }

    /**
     * Validates every flag and builds the agent (not started).
     *
     * @throws ParameterException naming the flag that is wrong
     */
    public Agent agent() {
        if (config != null) {
            try {
                WorkerConfigFile.read(config).forEach(this::applyFromFile);
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
        }
        if (pool == null) {
            throw usage("missing --pool (or pool = \"…\" in the [worker] table of --config)");
        }
        if (command.isEmpty()) {
            throw usage("missing the command to run: give it after '--', e.g. worker --pool " + pool
                    + " -- sh -c 'cat'");
        }
        String workerId = id != null ? id : WorkerIds.defaultId();
        check("--id", Rules.workerId(workerId));
        check("--pool", Rules.pool(pool));
        Map<String, String> labelMap = pairs("--label", labels, "a label is NAME=VALUE, e.g. --label gpu=a100");
        check("--label", Rules.labels(labelMap));
        int slotCount = slots != null ? slots : Runtime.getRuntime().availableProcessors();
        check("--slots", Rules.slots(slotCount));
        check("--address", io.cronoq.agent.WorkerAddress.check("address", address));
        Map<String, String> packageMap = pairs("--package", packages,
                "a package is NAME=VERSION, e.g. --package torch=2.1.0");
        packageMap.forEach((name, version) -> quantity(() -> PackageVersion.parse("--package " + name, version)));
        Path dir = workDir != null ? workDir.toAbsolutePath() : Path.of("").toAbsolutePath();
        if (!Files.isDirectory(dir)) {
            throw usage("--work-dir '" + workDir + "' is not a directory");
        }
        Duration childTimeout = timeout == null ? null : duration("--timeout", timeout);
        if (childTimeout != null && (childTimeout.isZero() || childTimeout.isNegative())) {
            throw usage("--timeout must be positive, got '" + timeout + "'");
        }
        MemoryCeilings.Mechanism mechanism;
        try {
            mechanism = MemoryCeilings.Mechanism.parse(memoryMechanism);
        } catch (IllegalArgumentException e) {
            throw usage("--memory-mechanism '" + memoryMechanism + "' is not one of auto, cgroup, rlimit");
        }
        MemoryCeiling ceiling = null;
        if (memoryLimit != null) {
            long limit = quantity(() -> Quantities.parseBytes("--memory-limit", memoryLimit));
            if (limit <= 0) {
                throw usage("--memory-limit must be positive, got '" + memoryLimit + "'");
            }
            try {
                ceiling = MemoryCeilings.select(limit, mechanism);
            } catch (IllegalStateException e) {
                throw usage("--memory-mechanism " + memoryMechanism + ": " + e.getMessage());
            }
        }
        if (gpus != null && gpus < 0) {
            throw usage("--gpus must be 0 or more, got " + gpus);
        }
        CronoqWorker.Builder builder = CronoqWorker.builder()
                .bootstrap(bootstrap).topicPrefix(topicPrefix).id(workerId).pool(pool).labels(labelMap)
                .slots(slotCount).address(address).workDir(dir).installedPackages(packageMap)
                .heartbeatInterval(positive("--heartbeat-interval", heartbeatInterval))
                .registrationTimeout(duration("--registration-timeout", registrationTimeout));
        if (cpu != null) {
            builder.cpuMillis(quantity(() -> Quantities.parseCpuMillis("--cpu", cpu)));
        }
        if (memory != null) {
            builder.memoryBytes(quantity(() -> Quantities.parseBytes("--memory", memory)));
        }
        if (disk != null) {
            builder.diskBytes(quantity(() -> Quantities.parseBytes("--disk", disk)));
        }
        if (gpus != null) {
            builder.gpus(gpus, gpuMemory == null ? 0 : quantity(() -> Quantities.parseBytes("--gpu-memory", gpuMemory)));
        } else if (gpuMemory != null) {
            throw usage("--gpu-memory needs --gpus: it is the memory of each GPU --gpus adds");
        }
        pairs("--kafka", kafka, "a Kafka setting is KEY=VALUE, e.g. --kafka security.protocol=SSL")
                .forEach(builder::kafkaProperty);
        if (tokenEnv != null) {
            String secret = env.get().get(tokenEnv);
            if (secret == null || secret.isEmpty()) {
                throw usage("--token-env " + tokenEnv + ": the environment variable is unset or empty");
            }
            builder.credential(credential != null ? credential : tokenEnv, secret);
        } else if (credential != null) {
            throw usage("--credential needs --token-env: the variable that holds the credential's secret");
        }
        for (String pattern : passEnv) {
            if (pattern.isBlank() || pattern.contains("=")) {
                throw usage("--pass-env '" + pattern + "' is not a variable name: give NAME or a prefix NAME*, "
                        + "e.g. --pass-env HF_HOME --pass-env AWS_*");
            }
        }
        if (tokenEnv != null && ChildEnvironment.firstMatch(passEnv, tokenEnv) != null) {
            throw usage("--pass-env " + ChildEnvironment.firstMatch(passEnv, tokenEnv) + " would pass " + tokenEnv
                    + ", the worker's signing secret, to every task: a task could then sign registrations as this "
                    + "worker's credential; name the variables tasks need instead");
        }
        ChildEnvironment childEnv = ChildEnvironment.of(env, tokenEnv, passEnv.isEmpty() ? null : passEnv);
        ChildUser childUser = ChildUser.agentsOwn();
        if (runAs != null) {
            try {
                childUser = ChildUser.parse(runAs);
            } catch (IllegalArgumentException e) {
                throw usage("--run-as " + runAs + ": " + e.getMessage());
            }
        }
        ChildProcessRunner runner = new ChildProcessRunner(ceiling, dir, childEnv, childUser);
        builder.handler(new ProcessTaskHandler(command, runner, childTimeout));
        return new Agent(builder.build(), runner);
    }

    private Map<String, String> pairs(String flag, List<String> values, String form) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String value : values) {
            int eq = value.indexOf('=');
            if (eq <= 0) {
                throw usage(flag + " '" + value + "' is malformed: " + form);
            }
            String name = value.substring(0, eq);
            if (out.put(name, value.substring(eq + 1)) != null) {
                throw usage(flag + " " + name + " is given twice");
            }
        }
        return out;
    }

    private void check(String flag, Optional<Violation> violation) {
        violation.ifPresent(v -> {
            throw usage(flag + ": " + v.message());
        });
    }

    private <T> T quantity(Supplier<T> parse) {
        try {
            return parse.get();
        } catch (InvalidInputException e) {
            throw usage(e.violation().message());
        }
    }

    private Duration duration(String flag, String text) {
        try {
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw usage(flag + ": " + e.getMessage());
        }
    }

    private Duration positive(String flag, String text) {
        Duration d = duration(flag, text);
        if (d.isZero() || d.isNegative()) {
            throw usage(flag + " must be positive, got '" + text + "'");
        }
        return d;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
