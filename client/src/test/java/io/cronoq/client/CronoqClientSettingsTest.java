package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Settings a client refuses before it connects to anything. */
class CronoqClientSettingsTest {

    @Test
    void noBootstrapServersIsRefused() {
        assertThatThrownBy(() -> CronoqClient.builder(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bootstrap servers are empty");
    }

    @Test
    void weakerAcksAreRefusedBecauseASubmissionCouldBeLostAfterItsFutureCompleted() {
        assertThatThrownBy(() -> CronoqClient.builder("127.0.0.1:1").kafkaProperty("acks", "1").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks=1");
    }

    @Test
    void disablingIdempotenceIsRefusedBecauseARetriedSendCouldWriteTwice() {
        assertThatThrownBy(() -> CronoqClient.builder("127.0.0.1:1").kafkaProperty("enable.idempotence", false).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enable.idempotence=false");
    }
}
