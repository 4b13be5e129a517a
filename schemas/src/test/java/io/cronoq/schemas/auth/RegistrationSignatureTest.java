package io.cronoq.schemas.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.WorkerRegistered;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RegistrationSignatureTest {

    private static final byte[] SECRET = RegistrationSignature.secretBytes("s3cret");

    private static WorkerRegistered registration(Map<String, String> labels) {
        return WorkerRegistered.newBuilder().setWorkerId("w-1").setPool("inference").setLabels(labels)
                .setSlots(4).setRegisteredAt(Instant.ofEpochMilli(1_000)).build();
    }

    @Test
    void signedRegistrationVerifiesRegardlessOfLabelOrder() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("zone", "eu");
        labels.put("gpu", "a100");
        WorkerRegistered signed = RegistrationSignature.signed(registration(labels), "gpu-workers", SECRET);
        Map<String, String> reordered = new LinkedHashMap<>();
        reordered.put("gpu", "a100");
        reordered.put("zone", "eu");
        WorkerRegistered same = WorkerRegistered.newBuilder(signed).setLabels(reordered).build();

        assertThat(signed.getCredential()).isEqualTo("gpu-workers");
        assertThat(RegistrationSignature.verify(signed, SECRET)).isTrue();
        assertThat(RegistrationSignature.verify(same, SECRET)).isTrue();
    }

    @Test
    void tamperedLabelsWrongSecretOrMissingSignatureFailVerification() {
        WorkerRegistered signed = RegistrationSignature.signed(registration(Map.of("gpu", "a100")), "gpu-workers", SECRET);
        WorkerRegistered tampered = WorkerRegistered.newBuilder(signed).setLabels(Map.of("gpu", "h100")).build();
        WorkerRegistered moreSlots = WorkerRegistered.newBuilder(signed).setSlots(64).build();
        WorkerRegistered unsigned = WorkerRegistered.newBuilder(signed).setSignature(null).build();

        assertThat(RegistrationSignature.verify(tampered, SECRET)).isFalse();
        assertThat(RegistrationSignature.verify(moreSlots, SECRET)).isFalse();
        assertThat(RegistrationSignature.verify(signed, RegistrationSignature.secretBytes("other"))).isFalse();
        assertThat(RegistrationSignature.verify(unsigned, SECRET)).isFalse();
    }
}
