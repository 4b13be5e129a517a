package io.cronoq.agent.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The account a task's process runs as. By default a child runs as the agent's own user, and a
 * process of the same user can read the agent's memory and {@code /proc/<agent>/environ}, where the
 * signing secret lives. Run as another user ({@code --run-as}), a task can read neither: the agent
 * (started as root) drops each child to that user and its groups with util-linux's {@code setpriv},
 * with {@code no_new_privs} set so no setuid program takes the rights back. Immutable.
 */
public final class ChildUser {

    private final String user;
    private final String group;

    private ChildUser(String user, String group) {
        this.user = user;
        this.group = group;
    }

    /** Children run as the agent's user: nothing is wrapped. */
    public static ChildUser agentsOwn() {
        return new ChildUser(null, null);
    }

    /**
     * Children run as {@code spec}, {@code USER} or {@code USER:GROUP} (the user's own group by default).
     *
     * @throws IllegalArgumentException saying what is wrong: the agent is not root, {@code setpriv} is
     *                                  missing, or the user or group does not exist
     */
    public static ChildUser parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String[] parts = spec.split(":", -1);
        if (parts.length > 2 || parts[0].isBlank() || (parts.length == 2 && parts[1].isBlank())) {
            throw new IllegalArgumentException("'" + spec + "' is not USER or USER:GROUP, e.g. --run-as cronoq-task");
        }
        if (!MemoryCeilings.onPath("setpriv")) {
            throw new IllegalArgumentException("needs util-linux's setpriv on the PATH to change a child's user");
        }
        if (!"0".equals(id("-u").orElse(null))) {
            throw new IllegalArgumentException("needs the agent to run as root: only root can start a child as "
                    + "another user (the agent itself keeps its secret, the children lose it)");
        }
        String user = parts[0];
        if (id("-u", user).isEmpty()) {
            throw new IllegalArgumentException("there is no user '" + user + "' on this machine");
        }
        String group = parts.length == 2 ? parts[1] : id("-gn", user).orElse(user);
        if (parts.length == 2 && !groupExists(group)) {
            throw new IllegalArgumentException("there is no group '" + group + "' on this machine");
        }
        return new ChildUser(user, group);
    }

    /** {@code command} started as this user (unchanged for the agent's own user). */
    public List<String> wrap(List<String> command) {
        if (user == null) {
            return command;
        }
        List<String> out = new ArrayList<>(List.of("setpriv", "--reuid=" + user, "--regid=" + group, "--init-groups",
                "--no-new-privs", "--"));
        out.addAll(command);
        return out;
    }

    private static boolean groupExists(String group) {
        return run(List.of("getent", "group", group)).isPresent();
    }

    private static Optional<String> id(String... args) {
        List<String> command = new ArrayList<>(List.of("id"));
        command.addAll(List.of(args));
        return run(command);
    }

    /** The first line a command prints when it exits 0, else empty. */
    private static Optional<String> run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return Optional.empty();
            }
            return Optional.of(out.lines().findFirst().orElse(""));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
