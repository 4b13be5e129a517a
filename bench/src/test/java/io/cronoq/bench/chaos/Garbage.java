package io.cronoq.bench.chaos;

/**
 * One bad input of the fuzz test: what it is, where it goes, its bytes, and what must become of it.
 *
 * @param name   what it is, for messages
 * @param topic  the input topic it is written to
 * @param key    its key (null for none)
 * @param value  its value bytes (null for a tombstone)
 * @param expect what must become of it
 */
record Garbage(String name, String topic, String key, byte[] value, Expect expect) {

    /** What must become of a bad input. */
    sealed interface Expect {
    }

    /** It cannot be decoded: a dead letter with its coordinates. */
    record DeadLettered() implements Expect {
    }

    /** It decodes but is invalid: {@code InputRejected} naming this task or worker id. */
    record Rejected(String id) implements Expect {
    }

    /** It names no pool: {@code InputRejected} on field {@code pool} for this input type. */
    record RejectedForPool(String inputType) implements Expect {
    }

    /** Absurd but maybe valid: rejected with a reason, or else it is a task that must succeed like any other. */
    record RejectedOrSucceeded(String taskId) implements Expect {
    }

    /** Absurd but maybe valid worker: rejected, or accepted (it then serves tasks like any other). */
    record RejectedOrAccepted(String workerId) implements Expect {
    }
}
