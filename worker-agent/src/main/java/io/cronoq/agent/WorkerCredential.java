package io.cronoq.agent;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The credential a worker signs its registrations with: the name of a scheduler {@code [[auth.tokens]]}
 * entry and its secret. The secret is never printed ({@link #toString()} redacts it).
 */
public final class WorkerCredential {

    private final String name;
    private final byte[] secret;

    private WorkerCredential(String name, byte[] secret) {
        this.name = name;
        this.secret = secret;
    }

    /** A credential named {@code name} with {@code secret}. */
    public static WorkerCredential of(String name, String secret) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("the credential name is empty");
        }
        if (secret == null || secret.isEmpty()) {
            throw new IllegalArgumentException("the secret of credential '" + name + "' is empty");
        }
        return new WorkerCredential(name, secret.getBytes(StandardCharsets.UTF_8));
    }

    public String name() {
        return name;
    }

    byte[] secret() {
        return secret.clone();
    }

    @Override
    public String toString() {
        return "WorkerCredential{name=" + name + ", secret=<redacted>}";
    }
}
