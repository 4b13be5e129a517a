package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.GangAssignment;
import io.cronoq.events.GangPeer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a handler learns of its gang from {@code ctx.gang()}: the assignment's gang in rank order, each peer by its
 * advertised address or else its worker id, immutable; nothing for a task of its own.
 */
class GangTest {

    private static final WorkerSettings SETTINGS = new WorkerSettings("w-2", "train", Map.of(), 1,
            Duration.ofSeconds(3), Duration.ofSeconds(30), null);

    @Test
    void aMemberSeesItsGangInRankOrderWithEachPeersAddressOrElseItsWorkerId() {
        GangAssignment gang = new GangAssignment("g-1", 3, 1, List.of(new GangPeer("w-1", "10.0.0.1:29500"),
                new GangPeer("w-2", "gpu-02.example.net"), new GangPeer("w-3", null)));

        Gang seen = context(gang).gang().orElseThrow();

        assertThat(seen).isEqualTo(new Gang("g-1", 3, 1, List.of("10.0.0.1:29500", "gpu-02.example.net", "w-3"),
                List.of("w-1", "w-2", "w-3")));
    }

    @Test
    void aTaskOfItsOwnHasNoGang() {
        assertThat(context(null).gang()).isEmpty();
    }

    @Test
    void theViewIsImmutableAndKeepsNoHoldOfTheListsItWasMadeFrom() {
        List<String> peers = new ArrayList<>(List.of("a", "b"));
        Gang gang = new Gang("g-1", 2, 0, peers, List.of("w-1", "w-2"));

        peers.set(0, "changed");

        assertThat(gang.peers()).containsExactly("a", "b");
        assertThatThrownBy(() -> gang.workers().add("w-3")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aGangWhoseRankSizeAndMembersDisagreeIsRefused() {
        List<String> two = List.of("a", "b");

        assertThatThrownBy(() -> new Gang("g-1", 2, 2, two, two)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rank 2 of size 2");
        assertThatThrownBy(() -> new Gang("g-1", 3, 0, two, List.of("a", "b", "c")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("with 2 peers and 3 workers");
        assertThatThrownBy(() -> new Gang("g-1", 0, 0, List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static TaskContext context(GangAssignment gang) {
        AttemptAssigned assigned = new AttemptAssigned("t-1", "train", 1, "w-2", 1L, Map.of(),
                ByteBuffer.wrap(new byte[0]), null, null, Instant.EPOCH, null, gang, new java.util.HashMap<>());
        return new AttemptContext(assigned, SETTINGS, (fraction, message) -> { });
    }
}
