package io.cronoq.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What the extension promises without a broker running. */
class KafkaBrokerTest {

    @Test
    void uniqueNamesDifferAndKeepThePrefix() {
        KafkaBroker broker = KafkaBroker.create();

        String first = broker.uniqueName("orders");
        String second = broker.uniqueName("orders");

        assertThat(first).startsWith("orders-").matches("[a-zA-Z0-9._-]+");
        assertThat(second).startsWith("orders-").isNotEqualTo(first);
    }

    @Test
    void usingTheBrokerBeforeRegistrationSaysHowToRegisterIt() {
        KafkaBroker broker = KafkaBroker.create();

        assertThatThrownBy(broker::bootstrapServers)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@RegisterExtension");
    }
}
