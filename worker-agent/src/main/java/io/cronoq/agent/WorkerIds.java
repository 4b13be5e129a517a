package io.cronoq.agent;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Default worker ids: the host name and the process id, made legal under cronoq's id rule. */
public final class WorkerIds {

    private WorkerIds() {
    }

    /** {@code <host>-<pid>}, e.g. {@code gpu-node-3-41234}. */
    public static String defaultId() {
        return sanitize(hostName() + "-" + ProcessHandle.current().pid());
    }

    /** Replaces characters an id may not carry with {@code -}, keeps it starting with a letter or digit and short. */
    static String sanitize(String raw) {
        String id = raw.replaceAll("[^A-Za-z0-9._:-]", "-");
        if (id.isEmpty() || !Character.isLetterOrDigit(id.charAt(0))) {
            id = "w" + id;
        }
        return id.length() > 255 ? id.substring(0, 255) : id;
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "worker";
        }
    }
}
