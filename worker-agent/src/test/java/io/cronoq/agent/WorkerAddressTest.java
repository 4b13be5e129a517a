package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.schemas.rules.InvalidInputException;
import io.cronoq.schemas.rules.Violation;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The address a worker advertises to its gangs' members: what a peer could dial passes, anything else is refused
 * with a message naming the setting, what is wrong and what would do instead; builders check it before anything
 * connects.
 */
class WorkerAddressTest {

    @ParameterizedTest
    @ValueSource(strings = {"gpu-07", "gpu-07.example.net", "10.0.0.7", "10.0.0.7:29500", "node:1", "node:65535",
            "fe80::1", "[fd00::7]", "[fd00::7]:29500"})
    void anAddressAPeerCouldDialPasses(String address) {
        assertThat(WorkerAddress.check("address", address)).isEmpty();
    }

    @Test
    void noAddressPasses() {
        assertThat(WorkerAddress.check("address", null)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "' '|without spaces",
            "'gpu 07'|without spaces",
            "node:0|its port '0' must be a number from 1 to 65535",
            "node:65536|its port '65536' must be a number from 1 to 65535",
            "node:http|its port 'http' must be a number from 1 to 65535",
            "node:|its port '' must be a number from 1 to 65535",
            ":29500|needs a host before ':port'",
            "'a,b'|must not contain ','",
            "tcp://node:29500|not a URL",
            "[fd00::7|closing ']'",
            "[fd00::7]:0|its port '0'",
            "[fd00::7]x|only ':port' may follow"})
    void anAddressNoPeerCouldDialIsRefusedNamingTheSettingAndTheFix(String address, String why) {
        Violation v = WorkerAddress.check("address", address).orElseThrow();

        assertThat(v.message()).startsWith("address is '" + address + "'; ").contains(why)
                .contains("e.g. gpu-07.example.net, 10.0.0.7:29500");
    }

    @Test
    void theLibraryWorkerAdvertisesTheAddressGivenOrTheHostsName() {
        TaskHandler any = ctx -> new byte[0];

        assertThat(CronoqWorker.builder().pool("p").handler(any).address("10.0.0.7:29500").options().settings()
                .address()).isEqualTo("10.0.0.7:29500");
        assertThat(CronoqWorker.builder().pool("p").handler(any).options().settings().address())
                .isEqualTo(WorkerAddress.local());
    }

    @Test
    void buildersRefuseABadAddressNamingIt() {
        TaskHandler any = ctx -> new byte[0];

        assertThatThrownBy(() -> CronoqWorker.builder().pool("p").handler(any).address("node:99999").build())
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("address is 'node:99999'");
        assertThatThrownBy(() -> EmbeddedExecutors.builder().name("app").address("gpu 07").build())
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("address is 'gpu 07'");
    }

    @Test
    void anEmbeddedGroupsWorkerIsMadeWithTheAddressItIsGiven() {
        TaskHandler any = ctx -> new byte[0];
        WorkerOptions template = EmbeddedExecutors.builder().handler(any).template();

        WorkerOptions group = template.forWorker("app.p.unlabeled.1", "p", Map.of(), 2, "10.0.0.8", any, null);

        assertThat(group.settings().address()).isEqualTo("10.0.0.8");
    }
}
