package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static io.cronoq.scheduler.fixtures.Events.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.DeadLetter;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.WorkerEvent;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Poison records go to dead letters, invalid events are rejected in the journal, and the scheduler keeps running. */
class BadInputTopologyTest {

    private static final String POOL = "batch";

    private final SchedulerDriver scheduler = new SchedulerDriver();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void poisonRecordsGoToDeadLettersWithReasonAndCoordinatesAndSchedulingGoesOn() {
        String submissions = scheduler.topics.submissions().name();
        byte[] key = POOL.getBytes(StandardCharsets.UTF_8);
        byte[] validWorkerEvent = scheduler.topics.workers().valueSerde().serializer()
                .serialize(scheduler.topics.workers().name(), new WorkerEvent(register("w", POOL, Map.of(), 1)));
        byte[] unknownSchemaId = {0, 0x7f, 0x7f, 0x7f, 0x7f, 2, 4};

        scheduler.sendRaw(submissions, key, "not avro at all".getBytes(StandardCharsets.UTF_8));
        scheduler.sendRaw(submissions, key, new byte[] {0, 0});
        scheduler.sendRaw(submissions, key, unknownSchemaId);
        scheduler.sendRaw(submissions, key, validWorkerEvent);
        scheduler.sendRaw(submissions, key, null);

        List<DeadLetter> letters = scheduler.deadLetters();
        assertThat(letters).hasSize(5);
        assertThat(letters).allSatisfy(letter -> {
            assertThat(letter.getTopic()).isEqualTo(submissions);
            assertThat(letter.getReason()).isNotBlank();
        });
        assertThat(letters).extracting(DeadLetter::getOffset).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(letters.get(0).getValue()).isEqualTo(ByteBuffer.wrap("not avro at all".getBytes(StandardCharsets.UTF_8)));

        scheduler.send(register("cpu-1", POOL, Map.of(), 1)).send(submit("t1", POOL));
        assertThat(scheduler.assignments()).extracting(kv -> kv.value)
                .filteredOn(AttemptAssigned.class::isInstance).hasSize(1);
    }

    @Test
    void workerWithNoSlotsIsRejectedNamingTheField() {
        scheduler.send(register("w1", POOL, Map.of(), 0));

        InputRejected rejected = rejections().get(0);
        assertThat(rejected.getCode()).isEqualTo(RejectionCode.INVALID_ARGUMENT);
        assertThat(rejected.getField()).isEqualTo("slots");
        var told = scheduler.assignments();
        assertThat(told).as("the worker is told why, on its own key").hasSize(1);
        assertThat(told.get(0).key).isEqualTo("w1");
        RegistrationRejected refusal = (RegistrationRejected) told.get(0).value;
        assertThat(refusal.getCode()).isEqualTo(RejectionCode.INVALID_ARGUMENT);
        assertThat(refusal.getReason()).startsWith("slots: ");
    }

    @Test
    void labelOutsideTheDocumentedSetIsRejected() {
        scheduler.send(submit("t1", POOL, Map.of("gpu", "a100 with spaces")));

        InputRejected rejected = rejections().get(0);
        assertThat(rejected.getField()).startsWith("labels");
        assertThat(rejected.getReason()).contains("a100 with spaces");
        assertThat(scheduler.task("t1")).isNull();
    }

    @Test
    void emptyPoolIsRejected() {
        scheduler.sendKeyed("", submit("t1", ""));

        InputRejected rejected = rejections().get(0);
        assertThat(rejected.getField()).isEqualTo("pool");
    }

    @Test
    void completionFromUnknownWorkerIsRejected() {
        scheduler.send(succeeded("nope", POOL, 1, "ghost", 1));

        assertThat(rejections()).hasSize(1);
        assertThat(scheduler.deadLetters()).isEmpty();
    }

    private List<InputRejected> rejections() {
        return scheduler.journal().stream().map(JournalEntry::getEvent)
                .filter(InputRejected.class::isInstance).map(InputRejected.class::cast).toList();
    }
}
