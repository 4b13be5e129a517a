package io.cronoq.scheduler.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CredentialsTest {

    private static final Map<String, String> ENV = Map.of("GPU_TOKEN", "gpu-secret", "ADMIN_TOKEN", "admin-secret");

    private static Credentials parse(List<Map<String, Object>> entries) {
        return Credentials.fromEntries(entries, ENV::get);
    }

    @Test
    void entriesAreReadWithNameDefaultingToTheVariable() {
        Credentials credentials = parse(List.of(
                Map.of("token_env", "GPU_TOKEN", "role", "worker", "pools", List.of("inference"),
                        "labels", List.of("gpu=a100", "zone=eu")),
                Map.of("token_env", "ADMIN_TOKEN", "role", "admin", "name", "ops")));

        Credential gpu = credentials.authenticate("gpu-secret").orElseThrow();
        assertThat(gpu.name()).isEqualTo("GPU_TOKEN");
        assertThat(gpu.role()).isEqualTo(Role.WORKER);
        assertThat(gpu.allowsPool("inference")).isTrue();
        assertThat(gpu.allowsPool("batch")).isFalse();
        assertThat(gpu.allowsLabel("gpu", "a100")).isTrue();
        assertThat(gpu.allowsLabel("gpu", "h100")).isFalse();
        assertThat(credentials.byName("ops").orElseThrow().allowsPool("anything")).isTrue();
        assertThat(credentials.authenticate("wrong")).isEmpty();
    }

    @Test
    void workerIdsAreGlobsAndOnlyAWorkerCredentialIsBoundByThem() {
        Credentials credentials = parse(List.of(
                Map.of("token_env", "GPU_TOKEN", "role", "worker", "workers", List.of("gpu-*-eu", "spare")),
                Map.of("token_env", "ADMIN_TOKEN", "role", "admin", "workers", List.of("none"))));

        Credential gpu = credentials.byName("GPU_TOKEN").orElseThrow();
        assertThat(gpu.allowsWorkerId("gpu-7-eu")).isTrue();
        assertThat(gpu.allowsWorkerId("gpu--eu")).isTrue();
        assertThat(gpu.allowsWorkerId("spare")).isTrue();
        assertThat(gpu.allowsWorkerId("gpu-7-us")).isFalse();
        assertThat(gpu.allowsWorkerId("spare-2")).as("a glob matches the whole id").isFalse();
        assertThat(gpu.allowsWorkerId("gpu.7-eu")).as("only * is special").isFalse();
        assertThat(credentials.byName("ADMIN_TOKEN").orElseThrow().allowsWorkerId("anything")).isTrue();
        assertThat(parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker"))).byName("GPU_TOKEN")
                .orElseThrow().allowsWorkerId("anything")).as("no workers key: any id").isTrue();
        assertThat(gpu.toString()).contains("workers=[gpu-*-eu, spare]");
    }

    @Test
    void toStringNeverShowsTheSecret() {
        Credentials credentials = parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker")));

        assertThat(credentials.toString()).doesNotContain("gpu-secret").contains("redacted");
    }

    @Test
    void configErrorsNameTheEntry() {
        assertThatThrownBy(() -> parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker"),
                Map.of("token_env", "ADMIN_TOKEN", "role", "root"))))
                .hasMessageContaining("entry 1 (token_env ADMIN_TOKEN)").hasMessageContaining("role is 'root'");
        assertThatThrownBy(() -> parse(List.of(Map.of("token_env", "UNSET_TOKEN", "role", "worker"))))
                .hasMessageContaining("entry 0 (token_env UNSET_TOKEN)").hasMessageContaining("unset or empty");
        assertThatThrownBy(() -> parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker", "labels", List.of("gpu")))))
                .hasMessageContaining("entry 0 (token_env GPU_TOKEN)").hasMessageContaining("label 'gpu' is malformed");
        assertThatThrownBy(() -> parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker", "lables", List.of()))))
                .hasMessageContaining("unknown key 'lables'");
        assertThatThrownBy(() -> parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker", "workers", List.of("gpu 1")))))
                .hasMessage("[[auth.tokens]] entry 0 (token_env GPU_TOKEN): workers: worker id pattern 'gpu 1' is blank or "
                        + "has whitespace; write an id, or a glob such as gpu-eu-*");
        assertThatThrownBy(() -> parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker", "workers", "gpu-*"))))
                .hasMessageContaining("workers must be a list of strings");
        assertThatThrownBy(() -> parse(List.of(Map.of("token_env", "GPU_TOKEN", "role", "worker", "workers", List.of()))))
                .hasMessageContaining("workers is empty, which would refuse every worker id");
    }
}
