package io.cronoq.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class BrokerKindTest {

    @Test
    void defaultIsTheInJvmBrokerWithoutAskingDocker() {
        AtomicBoolean asked = new AtomicBoolean();

        BrokerKind kind = BrokerKind.choose(null, () -> {
            asked.set(true);
            return true;
        });

        assertThat(kind).isEqualTo(BrokerKind.IN_JVM);
        assertThat(asked).isFalse();
    }

    @Test
    void containerIsChosenWhenAskedForAndDockerIsAvailable() {
        assertThat(BrokerKind.choose("container", () -> true)).isEqualTo(BrokerKind.CONTAINER);
    }

    @Test
    void containerRequestFallsBackToInJvmWithoutDocker() {
        assertThat(BrokerKind.choose("container", () -> false)).isEqualTo(BrokerKind.IN_JVM);
    }

    @Test
    void anyOtherValueMeansInJvm() {
        assertThat(BrokerKind.choose("in-jvm", () -> true)).isEqualTo(BrokerKind.IN_JVM);
    }
}
