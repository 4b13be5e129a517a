package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

class SchemaRegistriesTest {

    @Test
    void aRegistryUrlSelectsTheHttpClientWithoutCallingIt() {
        try (SchemaRegistry registry = SchemaRegistries.fromConfig(Map.of(
                "schema.registry.url", "http://registry.invalid:8081", "bootstrap.servers", "ignored:9092"))) {
            assertThat(registry).isInstanceOf(HttpSchemaRegistry.class);
        }
    }

    @Test
    void neitherUrlNorBootstrapServersSaysWhatToSet() {
        assertThatThrownBy(() -> SchemaRegistries.fromConfig(Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url").hasMessageContaining("bootstrap.servers");
    }

    @Test
    void aTimeoutThatIsNotANumberIsRejected() {
        assertThatThrownBy(() -> SchemaRegistries.fromConfig(Map.of(
                "schema.registry.url", "http://localhost:8081", SchemaRegistries.TIMEOUT_MS_CONFIG, "soon")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(SchemaRegistries.TIMEOUT_MS_CONFIG);
    }

    @Test
    void aUrlThatIsNotHttpIsRejected() {
        assertThatThrownBy(() -> SchemaRegistries.fromConfig(Map.of("schema.registry.url", "localhost:8081")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not an http(s) URL");
    }
}
