package io.cronoq.bench.chaos;

import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.bench.chaos.Garbage.DeadLettered;
import io.cronoq.bench.chaos.Garbage.Rejected;
import io.cronoq.bench.chaos.Garbage.RejectedForPool;
import io.cronoq.bench.chaos.Garbage.RejectedOrSucceeded;
import io.cronoq.schemas.Topics;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Makes the fuzz test's bad inputs for each input topic: random bytes, a wrong magic byte, an unknown
 * schema id, a truncated body, an empty value, a tombstone, valid Avro of another topic's type, and
 * absurd values (10,000 labels, negative and huge slots, empty pools, a 10,000-character id, extreme
 * times, a negative lease, unknown attempts). Deterministic for a variant.
 */
final class GarbageMaker {

    private final Topics topics;
    private final String pool;
    private final String prefix;
    private final Random random;

    GarbageMaker(Topics topics, String pool, String prefix, long variant) {
        this.topics = topics;
        this.pool = pool;
        this.prefix = prefix;
        this.random = new Random(variant);
    }

    /** Every bad input, for all three input topics. */
    List<Garbage> all() {
        List<Garbage> all = new ArrayList<>();
        all.addAll(undecodable(topics.submissions().name(), submission(task("valid-body").build())));
        all.addAll(undecodable(topics.workers().name(), worker(registration("valid-body", 1).build())));
        all.addAll(undecodable(topics.completions().name(), completion(succeeded("valid-body", 1))));
        // Valid Avro, but of another topic's type: the registry knows its id, the reader cannot resolve it.
        all.add(dead(topics.submissions().name(), "a WorkerEvent on submissions", worker(registration("x", 1).build())));
        all.add(dead(topics.workers().name(), "a CompletionEvent on workers", completion(succeeded("x", 1))));
        all.add(dead(topics.completions().name(), "a SubmissionEvent on completions", submission(task("x").build())));

        String s = topics.submissions().name();
        all.add(dead(s, "a label map claiming 500,000,000 entries in 19 bytes", hugeLabelCount()));
        // The 10,000-label worker (workerWithManyLabels) carries the same labels, so if valid the task runs on it.
        all.add(new Garbage("a task requiring 10,000 labels", s, pool,
                submission(task("labels").setLabels(labels(10_000)).build()), new RejectedOrSucceeded(id("labels"))));
        all.add(new Garbage("a task with a 10,000-character id", s, pool,
                submission(task("x").setTaskId(prefix + "-" + "i".repeat(10_000)).build()),
                new Rejected(prefix + "-" + "i".repeat(10_000))));
        all.add(new Garbage("a task with an empty pool", s, "",
                submission(task("empty-pool").setPool("").build()), new RejectedForPool("TaskSubmitted")));
        all.add(new Garbage("a task with an illegal label", s, pool,
                submission(task("bad-label").setLabels(Map.of("", "?")).build()), new Rejected(id("bad-label"))));
        all.add(new Garbage("a task with 0 attempts allowed", s, pool,
                submission(task("no-attempts").setRetry(RetryPolicy.newBuilder().setMaxAttempts(0).build()).build()),
                new Rejected(id("no-attempts"))));
        all.add(new Garbage("a task due at the end of time", s, pool,
                submission(task("deadline-max").setDeadline(Instant.ofEpochMilli(Long.MAX_VALUE)).build()),
                new RejectedOrSucceeded(id("deadline-max"))));
        all.add(new Garbage("a task due at the start of time", s, pool,
                submission(task("deadline-min").setDeadline(Instant.ofEpochMilli(Long.MIN_VALUE)).build()),
                new RejectedOrSucceeded(id("deadline-min"))));
        all.add(new Garbage("a task submitted at the start of time", s, pool,
                submission(task("submitted-min").setSubmittedAt(Instant.ofEpochMilli(Long.MIN_VALUE)).build()),
                new RejectedOrSucceeded(id("submitted-min"))));
        all.add(new Garbage("a task with a negative lease", s, pool,
                submission(task("lease-negative").setTimeoutMs(-1L).build()),
                new RejectedOrSucceeded(id("lease-negative"))));

        String w = topics.workers().name();
        all.add(new Garbage("a worker with -5 slots", w, pool, worker(registration("slots-negative", -5).build()),
                new Rejected(id("slots-negative"))));
        all.add(new Garbage("a worker with 2^31-1 slots", w, pool,
                worker(registration("slots-huge", Integer.MAX_VALUE).build()), new Rejected(id("slots-huge"))));
        all.add(new Garbage("a worker with an empty pool", w, "",
                worker(registration("empty-pool", 1).setPool("").build()), new RejectedForPool("WorkerRegistered")));

        String c = topics.completions().name();
        all.add(new Garbage("a success for an unknown task", c, pool, completion(succeeded("unknown-task", 1)),
                new Rejected(id("unknown-task"))));
        all.add(new Garbage("a start of attempt -1", c, pool, completion(AttemptStarted.newBuilder()
                .setTaskId(id("attempt-negative")).setPool(pool).setAttempt(-1).setWorkerId(id("nobody"))
                .setGeneration(-1).setAt(Instant.EPOCH).build()), new Rejected(id("attempt-negative"))));
        all.add(new Garbage("a success with an empty pool", c, "",
                completion(AttemptSucceeded.newBuilder(succeeded("empty-pool", 1)).setPool("").build()),
                new RejectedForPool("AttemptSucceeded")));
        return all;
    }

    /** A worker that claims 10,000 labels (registered through the simulated workers, so it answers if accepted). */
    WorkerRegistered workerWithManyLabels() {
        return registration("labels", 1).setLabels(labels(10_000)).build();
    }

    /** A valid task carrying a payload of {@code bytes} bytes. */
    byte[] taskWithPayload(String name, int bytes) {
        return submission(task(name).setPayload(ByteBuffer.wrap(new byte[bytes])).build());
    }

    String id(String name) {
        return prefix + "-" + name;
    }

    private List<Garbage> undecodable(String topic, byte[] valid) {
        List<Garbage> out = new ArrayList<>();
        byte[] noise = new byte[64];
        random.nextBytes(noise);
        noise[0] = (byte) 0x7f;
        out.add(dead(topic, "random bytes on " + topic, noise));
        byte[] magic = valid.clone();
        magic[0] = 1;
        out.add(dead(topic, "a wrong magic byte on " + topic, magic));
        byte[] unknown = valid.clone();
        ByteBuffer.wrap(unknown).putInt(1, 0x7ffffff0);
        out.add(dead(topic, "an unknown schema id on " + topic, unknown));
        // The union branch of the event, then a string length far beyond the bytes that follow.
        byte[] truncated = Arrays.copyOf(valid, 5 + 6);
        System.arraycopy(new byte[] {0x00, (byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}, 0, truncated, 5, 6);
        out.add(dead(topic, "a truncated body on " + topic, truncated));
        out.add(dead(topic, "a 3-byte value on " + topic, new byte[] {0, 0, 1}));
        out.add(dead(topic, "an empty value on " + topic, new byte[0]));
        out.add(dead(topic, "a tombstone on " + topic, null));
        return out;
    }

    /** A TaskSubmitted whose label map says it holds 500 M entries: a decoder that trusted it would allocate gigabytes. */
    private byte[] hugeLabelCount() {
        byte[] valid = submission(task("x").build());
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(valid, 0, 5);
        varint(out, 0); // union branch: TaskSubmitted
        varint(out, 1);
        out.write('x'); // taskId
        varint(out, 1);
        out.write('p'); // pool
        varint(out, 500_000_000L); // labels: a block of 500 M entries, then one
        varint(out, 1);
        out.write('k');
        varint(out, 1);
        out.write('v');
        return out.toByteArray();
    }

    private static void varint(java.io.ByteArrayOutputStream out, long value) {
        long z = (value << 1) ^ (value >> 63);
        while ((z & ~0x7FL) != 0) {
            out.write((int) ((z & 0x7F) | 0x80));
            z >>>= 7;
        }
        out.write((int) z);
    }

    private Garbage dead(String topic, String name, byte[] value) {
        return new Garbage(name, topic, pool, value, new DeadLettered());
    }

    private TaskSubmitted.Builder task(String name) {
        return TaskSubmitted.newBuilder().setTaskId(id(name)).setPool(pool).setSubmittedAt(Instant.now());
    }

    private WorkerRegistered.Builder registration(String name, int slots) {
        return WorkerRegistered.newBuilder().setWorkerId(id(name)).setPool(pool).setSlots(slots)
                .setRegisteredAt(Instant.now());
    }

    private AttemptSucceeded succeeded(String name, int attempt) {
        return AttemptSucceeded.newBuilder().setTaskId(id(name)).setPool(pool).setAttempt(attempt)
                .setWorkerId(id("nobody")).setGeneration(1).setAt(Instant.now()).build();
    }

    private static Map<String, String> labels(int n) {
        Map<String, String> labels = new HashMap<>();
        for (int i = 0; i < n; i++) {
            labels.put("l" + i, "v" + i);
        }
        return labels;
    }

    private byte[] submission(TaskSubmitted task) {
        return topics.submissions().valueSerde().serializer().serialize(topics.submissions().name(), new SubmissionEvent(task));
    }

    private byte[] worker(WorkerRegistered registration) {
        return topics.workers().valueSerde().serializer().serialize(topics.workers().name(), new WorkerEvent(registration));
    }

    private byte[] completion(Object event) {
        return topics.completions().valueSerde().serializer().serialize(topics.completions().name(),
                new CompletionEvent(event));
    }
}
