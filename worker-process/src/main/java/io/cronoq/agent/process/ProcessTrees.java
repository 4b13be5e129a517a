package io.cronoq.agent.process;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kills a child and everything it started. The child runs in a session of its own ({@code setsid}), so its process
 * group is killed with one signal even after the child itself is gone; the descendants Java still sees are killed as
 * well, for children that changed their group.
 */
final class ProcessTrees {

    private static final Logger log = LoggerFactory.getLogger(ProcessTrees.class);
    static final boolean SETSID = MemoryCeilings.onPath("setsid");

    private ProcessTrees() {
    }

    /** The command that starts {@code command} as the leader of a new session (and so of a new process group). */
    static List<String> inOwnSession(List<String> command) {
        if (!SETSID) {
            return command;
        }
        List<String> out = new java.util.ArrayList<>(command.size() + 1);
        out.add("setsid");
        out.addAll(command);
        return out;
    }

    /**
     * Sends SIGKILL to the child's process group, its descendants and the child. The child is killed through its
     * handle, not {@link Process#destroyForcibly()}, which also closes the child's output streams: a child that had
     * already ended would lose what it printed whenever its readers had not drained it yet.
     */
    static void kill(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        if (SETSID) {
            killGroup(process.pid());
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
        process.toHandle().destroyForcibly();
    }

    private static void killGroup(long pgid) {
        try {
            Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            log.debug("Could not signal process group {}", pgid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
