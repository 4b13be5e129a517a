package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Dependency;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.ParentWatched;
import io.cronoq.events.TaskBlocked;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A child and its parent in two pools: the watch and the parent's end travel on the dependencies topic. */
class DependencyTopologyTest {

    private final SchedulerDriver scheduler = new SchedulerDriver();

    @AfterEach
    void close() {
        scheduler.close();
    }

    private static TaskSubmitted child(String id, String pool, Dependency... after) {
        TaskSubmitted t = submit(id, pool);
        t.setAfter(new ArrayList<>(List.of(after)));
        return t;
    }

    @Test
    void aChildInOnePoolStartsWhenItsParentInAnotherSucceedsWithTheParentsResult() {
        scheduler.send(register("gpu-1", "gpu", Map.of(), 1));
        scheduler.send(register("cpu-1", "cpu", Map.of(), 1));
        scheduler.send(submit("train", "gpu"));
        AttemptAssigned train = assigned(scheduler.assignments(), "train");
        scheduler.journal();

        scheduler.send(child("evaluate", "cpu", new Dependency("train", "gpu", ParentCondition.SUCCEEDED)));
        List<JournalEntry> journal = scheduler.journal();
        assertThat(journal).extracting(JournalEntry::getPool, e -> ((SpecificRecord) e.getEvent()).getSchema().getName())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("cpu", "TaskSubmitted"),
                        org.assertj.core.groups.Tuple.tuple("cpu", "TaskBlocked"),
                        org.assertj.core.groups.Tuple.tuple("gpu", "ParentWatched"));
        assertThat(scheduler.task("cpu", "evaluate").getState()).isEqualTo(TaskState.BLOCKED);
        assertThat(scheduler.task("gpu", "train").getChildren()).isEqualTo(1);

        scheduler.send(new AttemptSucceeded("train", "gpu", train.getAttempt(), "gpu-1", train.getGeneration(),
                io.cronoq.scheduler.fixtures.Events.T0, ByteBuffer.wrap("s3://m/7".getBytes(StandardCharsets.UTF_8))));
        journal = scheduler.journal();
        assertThat(journal).extracting(e -> ((SpecificRecord) e.getEvent()).getSchema().getName())
                .containsSubsequence("AttemptSucceeded", "TaskFinished", "ParentEnded", "AttemptAssigned");
        ParentEnded end = (ParentEnded) journal.stream().filter(e -> e.getEvent() instanceof ParentEnded)
                .findFirst().orElseThrow().getEvent();
        assertThat(end.getState()).isEqualTo(TaskState.SUCCEEDED);
        AttemptAssigned evaluate = assigned(scheduler.assignments(), "evaluate");
        assertThat(StandardCharsets.UTF_8.decode(evaluate.getParentResults().get("train")).toString())
                .isEqualTo("s3://m/7");
        assertThat(scheduler.storeContents(StoreNames.DEPENDENCIES)).extracting(kv -> kv.key)
                .as("the parent's result is kept; its told children are not")
                .containsExactlyInAnyOrder("gpu/train/r", "cpu/evaluate/p/gpu/train");
    }

    @Test
    void aReduceReadsAsItIsNowWhileItsParentsEnd() {
        scheduler.send(register("w", "p", Map.of(), 3));
        for (String shard : List.of("s1", "s2", "s3")) {
            scheduler.send(submit(shard, "p"));
        }
        List<KeyValue<String, SpecificRecord>> shards = scheduler.assignments();
        scheduler.send(child("reduce", "p", new Dependency("s1", null, ParentCondition.SUCCEEDED),
                new Dependency("s2", null, ParentCondition.SUCCEEDED), new Dependency("s3", null, ParentCondition.SUCCEEDED)));
        AttemptAssigned s2 = assigned(shards, "s2");
        scheduler.send(new AttemptSucceeded("s2", "p", s2.getAttempt(), "w", s2.getGeneration(),
                io.cronoq.scheduler.fixtures.Events.T0, null));

        var queries = new io.cronoq.scheduler.query.SchedulerQueries(
                io.cronoq.scheduler.query.ReadOnlyStores.of(scheduler.driver::getKeyValueStore));
        var reduce = queries.task("p", "reduce").orElseThrow();
        assertThat(reduce.getState()).isEqualTo(TaskState.BLOCKED);
        assertThat(reduce.getUnmetParents()).isEqualTo(2);
        assertThat(reduce.getWaitingReason()).isEqualTo("waits for 2 of its 3 parents to end as it asks");
    }

    private static AttemptAssigned assigned(List<KeyValue<String, SpecificRecord>> assignments, String taskId) {
        return assignments.stream().map(kv -> kv.value).filter(AttemptAssigned.class::isInstance)
                .map(AttemptAssigned.class::cast).filter(a -> a.getTaskId().equals(taskId)).findFirst().orElseThrow();
    }
}
