package io.cronoq.scheduler.auth;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What a credential may do: admins everything, submitters submit/cancel/read, workers register, viewers read. */
public enum Role {
    ADMIN, SUBMITTER, WORKER, VIEWER;

    /** The role spelled as in the config file ({@code admin}, {@code submitter}, {@code worker}, {@code viewer}). */
    public static Optional<Role> parse(String name) {
        return Arrays.stream(values()).filter(r -> r.configName().equals(name)).findFirst();
    }

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
