package io.cronoq.schemas.auth;

import io.cronoq.events.WorkerRegistered;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature a worker puts on its registration, shared by the agent (which signs) and the
 * scheduler (which verifies): HMAC-SHA256, under the credential's secret, of a canonical encoding of
 * (worker id, pool, labels sorted by name, slots, registeredAt in epoch millis, credential name).
 * Every string is length-prefixed UTF-8, so no two different registrations encode alike.
 */
public final class RegistrationSignature {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int VERSION = 1;

    private RegistrationSignature() {}

    /** The canonical bytes that are signed. */
    public static byte[] canonical(WorkerRegistered registration) {
        try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
             DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(VERSION);
            string(out, registration.getWorkerId());
            string(out, registration.getPool());
            Map<String, String> sorted = new TreeMap<>();
            if (registration.getLabels() != null) {
                registration.getLabels().forEach((k, v) -> sorted.put(k.toString(), v.toString()));
            }
            out.writeInt(sorted.size());
            for (Map.Entry<String, String> label : sorted.entrySet()) {
                string(out, label.getKey());
                string(out, label.getValue());
            }
            out.writeInt(registration.getSlots());
            out.writeLong(registration.getRegisteredAt().toEpochMilli());
            string(out, registration.getCredential());
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The HMAC of {@code registration} under {@code secret}. */
    public static byte[] sign(WorkerRegistered registration, byte[] secret) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret, ALGORITHM));
            return mac.doFinal(canonical(registration));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable in this JVM", e);
        }
    }

    /** Whether {@code registration}'s signature is the HMAC under {@code secret}, compared in constant time. */
    public static boolean verify(WorkerRegistered registration, byte[] secret) {
        if (registration.getSignature() == null) {
            return false;
        }
        var buffer = registration.getSignature().duplicate();
        byte[] given = new byte[buffer.remaining()];
        buffer.get(given);
        return MessageDigest.isEqual(sign(registration, secret), given);
    }

    /** Sets the credential name and the signature under {@code secret} on {@code registration}. */
    public static WorkerRegistered signed(WorkerRegistered registration, String credential, byte[] secret) {
        WorkerRegistered copy = WorkerRegistered.newBuilder(registration).setCredential(credential).setSignature(null).build();
        copy.setSignature(java.nio.ByteBuffer.wrap(sign(copy, secret)));
        return copy;
    }

    private static void string(DataOutputStream out, CharSequence value) throws IOException {
        if (value == null) {
            out.writeInt(-1);
            return;
        }
        byte[] utf8 = value.toString().getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    /** The UTF-8 bytes of a secret as held in an environment variable. */
    public static byte[] secretBytes(String secret) {
        return secret.getBytes(StandardCharsets.UTF_8);
    }
}
