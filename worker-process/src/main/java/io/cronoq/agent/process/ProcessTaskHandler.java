package io.cronoq.agent.process;

import io.cronoq.schemas.rules.Durations;
import io.cronoq.agent.AttemptCancelledException;
import io.cronoq.agent.TaskContext;
import io.cronoq.agent.TaskFailedException;
import io.cronoq.agent.TaskHandler;
import io.cronoq.schemas.rules.Quantities;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs each attempt as a child process: the agent's command, the payload on stdin, and the attempt in the
 * environment ({@code CRONOQ_TASK_ID}, {@code CRONOQ_ATTEMPT}, {@code CRONOQ_POOL}, {@code CRONOQ_GROUP} as sorted
 * {@code k=v,k=v}, {@code CRONOQ_WORKER_ID}, {@code CRONOQ_GENERATION}, and in epoch ms {@code CRONOQ_DEADLINE} and
 * {@code CRONOQ_START_AT} when the task has them; for a member of a gang {@code CRONOQ_GANG_ID}, {@code _SIZE},
 * {@code _RANK}, {@code _PEERS} and {@code _WORKERS}, the last two comma-separated in rank order; for a task whose
 * parents returned results, {@code CRONOQ_PARENT_RESULTS}, the path of a JSON file of them ({@link ParentResultsFile})).
 * A child of a
 * fixed-start attempt is started at its start time. Exit code 0 succeeds with the tail of stdout as the result; any
 * other exit fails with the exit
 * code and the tail of stderr (retryable). Blowing a ceiling fails with the ceiling and its limit: the wall-clock
 * timeout retryably, the memory ceiling not (the same input would blow it again).
 */
public final class ProcessTaskHandler implements TaskHandler {

    /**
     * Every variable an attempt may set; a child sees the agent's own value of none of them, only what its attempt
     * set (a lone task under an agent that itself runs in a gang sees no {@code CRONOQ_GANG_*}).
     */
    static final List<String> VARIABLES = List.of("CRONOQ_TASK_ID", "CRONOQ_ATTEMPT", "CRONOQ_POOL", "CRONOQ_GROUP",
            "CRONOQ_WORKER_ID", "CRONOQ_GENERATION", "CRONOQ_DEADLINE", "CRONOQ_START_AT", "CRONOQ_GANG_ID",
            "CRONOQ_GANG_SIZE", "CRONOQ_GANG_RANK", "CRONOQ_GANG_PEERS", "CRONOQ_GANG_WORKERS", "CRONOQ_PARENT_RESULTS");

    private final List<String> command;
    private final ChildProcessRunner runner;
    private final Duration timeout;

    /**
     * @param command the command and its arguments
     * @param runner  runs the children under the memory ceiling
     * @param timeout the wall-clock ceiling per attempt, or {@code null} for none
     */
    public ProcessTaskHandler(List<String> command, ChildProcessRunner runner, Duration timeout) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a process agent needs a command to run");
        }
        this.command = List.copyOf(command);
        this.runner = runner;
        this.timeout = timeout;
    }

    @Override
    public byte[] handle(TaskContext ctx) throws IOException {
        Map<String, String> env = environment(ctx);
        String name = ctx.taskId() + "-" + ctx.attempt();
        ChildProcessRunner.Outcome outcome;
        if (ctx.parentResults().isEmpty()) {
            outcome = runner.run(name, command, env, ctx.payload(), timeout, ctx.cancellation());
        } else {
            try (ParentResultsFile parents = ParentResultsFile.write(name.replace(':', '_'), ctx.parentResults())) {
                env.put("CRONOQ_PARENT_RESULTS", parents.path().toString());
                outcome = runner.run(name, command, env, ctx.payload(), timeout, ctx.cancellation());
            }
        }
        switch (outcome.ending()) {
            case CANCELLED -> throw new AttemptCancelledException(ctx.cancellation().reason().orElse("cancelled"));
            case TIMEOUT -> throw new TaskFailedException("killed: wall-clock timeout "
                    + Durations.words(outcome.timeout()) + " exceeded" + stderr(outcome), true);
            case MEMORY_CEILING -> throw new TaskFailedException(memoryMessage(outcome), false);
            default -> {
                if (outcome.succeeded()) {
                    return outcome.stdoutTail();
                }
                throw new TaskFailedException(exitMessage(outcome.exitCode()) + stderr(outcome), true);
            }
        }
    }

    private String memoryMessage(ChildProcessRunner.Outcome outcome) {
        MemoryCeiling ceiling = runner.memoryCeiling();
        String limit = Quantities.formatBytes(ceiling.limitBytes());
        if (ceiling instanceof AddressSpaceCeiling) {
            // An rlimit does not kill: the child's allocation failed and it exited.
            return "failed: memory ceiling " + limit + " exceeded (" + ceiling.mechanism() + ", "
                    + exitMessage(outcome.exitCode()) + ")" + stderr(outcome);
        }
        return "killed: memory ceiling " + limit + " exceeded" + stderr(outcome);
    }

    /** The environment that tells the child which attempt it runs. */
    static Map<String, String> environment(TaskContext ctx) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CRONOQ_TASK_ID", ctx.taskId());
        env.put("CRONOQ_ATTEMPT", Integer.toString(ctx.attempt()));
        env.put("CRONOQ_POOL", ctx.pool());
        env.put("CRONOQ_GROUP", groupText(ctx.group()));
        env.put("CRONOQ_WORKER_ID", ctx.workerId());
        env.put("CRONOQ_GENERATION", Long.toString(ctx.generation()));
        ctx.deadline().ifPresent(d -> env.put("CRONOQ_DEADLINE", Long.toString(d.toEpochMilli())));
        ctx.startAt().ifPresent(t -> env.put("CRONOQ_START_AT", Long.toString(t.toEpochMilli())));
        ctx.gang().ifPresent(g -> {
            env.put("CRONOQ_GANG_ID", g.id());
            env.put("CRONOQ_GANG_SIZE", Integer.toString(g.size()));
            env.put("CRONOQ_GANG_RANK", Integer.toString(g.rank()));
            env.put("CRONOQ_GANG_PEERS", String.join(",", g.peers()));
            env.put("CRONOQ_GANG_WORKERS", String.join(",", g.workers()));
        });
        return env;
    }

    /** {@code k=v,k=v}, sorted by name; empty for the unlabeled group. */
    static String groupText(Map<String, String> group) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(group).forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return sb.toString();
    }

    private static String exitMessage(int exit) {
        return exit > 128 && exit < 128 + 65 ? "exit code " + exit + " (killed by signal " + (exit - 128) + ")"
                : "exit code " + exit;
    }

    private static String stderr(ChildProcessRunner.Outcome outcome) {
        String tail = outcome.stderrTail().strip();
        return tail.isEmpty() ? "" : ": " + tail;
    }
}
