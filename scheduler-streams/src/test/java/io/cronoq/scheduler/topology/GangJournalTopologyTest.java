package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.fixtures.Events;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.events.Journal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A gang placed whole journals every member's assignment with the gang's workers: what one input caused goes on in
 * further journal records rather than past Kafka's 1 MB limit on one, and nothing of it is lost.
 */
class GangJournalTopologyTest {

    private static final int KAFKA_RECORD_LIMIT = 1024 * 1024;
    private final SchedulerDriver scheduler = new SchedulerDriver();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aGangOf512IsJournaledInRecordsKafkaTakesAndFoldsWhole() {
        int size = 512;
        for (int w = 0; w < 64; w++) {
            scheduler.send(register("worker-with-a-long-name-" + w, "p", Map.of(), 8));
        }
        scheduler.journal(); // the registrations

        scheduler.send(gang("wide", size, 200));

        List<JournalEntry> records = scheduler.journal();
        assertThat(records).as("more than one record for one input").hasSizeGreaterThan(1);
        var serializer = scheduler.topics.journal().valueSerde().serializer();
        for (JournalEntry record : records) {
            assertThat(serializer.serialize(scheduler.topics.journal().name(), record).length)
                    .isLessThan(KAFKA_RECORD_LIMIT);
        }
        List<Object> events = new ArrayList<>();
        records.forEach(r -> Journal.entries(r).forEach(e -> events.add(e.getEvent())));
        assertThat(events.get(0)).isInstanceOf(GangSubmitted.class);
        assertThat(events).filteredOn(AttemptAssigned.class::isInstance).hasSize(size);

        JournalFold fold = new JournalFold();
        fold.applyAll(records);
        assertThat(fold.tasks().values()).hasSize(size)
                .allSatisfy(t -> assertThat(t.state()).isEqualTo(TaskState.ASSIGNED));
    }

    private static GangSubmitted gang(String id, int size, int payloadBytes) {
        List<TaskSubmitted> members = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            TaskSubmitted member = submit(id + "-" + rank, "p", Map.of());
            member.setPayload(ByteBuffer.wrap(new byte[payloadBytes]));
            members.add(member);
        }
        return new GangSubmitted(id, "p", GangPlacement.ANY, null, members, "tests", Events.T0);
    }
}
