package io.cronoq.scheduler.topology;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.AbstractStoreBuilder;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a processor's action just before its stream task commits, inside the transaction being
 * committed, so what the action sends commits with the inputs that caused it.
 *
 * <p>Kafka Streams offers processors no such hook; it does flush the caches of a task's cached
 * stores then, before it flushes the producer and commits. This is a store that holds nothing and
 * logs nothing and presents itself as cached: its "cache flush" is the action. The action runs
 * where no processor is current, so {@link #watch} makes the processor current for it as Kafka
 * Streams does around a punctuation (its node, and a record context of no input). Both use Kafka
 * Streams' internal types (checked against the version cronoq is built with by the tests that run
 * the topology); with a context that is not Kafka Streams' own (a test's mock), there is no hook
 * and {@link #watch} returns false.
 */
final class CommitHook implements StateStore, CachedStateStore<Object, Object> {

    private static final Logger log = LoggerFactory.getLogger(CommitHook.class);

    private final String name;
    private volatile boolean open;
    private Runnable action;

    private CommitHook(String name) {
        this.name = name;
    }

    /** How the topology builds the hook: never logged, in memory; Kafka Streams' builder keeps the settings. */
    static StoreBuilder<CommitHook> builder(String name) {
        return new AbstractStoreBuilder<Void, Void, CommitHook>(name, null, null, Time.SYSTEM) {
            @Override
            public CommitHook build() {
                return new CommitHook(name);
            }
        }.withLoggingDisabled();
    }

    /**
     * Has {@code action} run before each commit of the stream task of {@code context} (the context a
     * processor was initialized with; call it from {@code init}), with that processor current.
     *
     * @return false when {@code context} is not Kafka Streams' own: nothing will run
     */
    boolean watch(ProcessorContext<?, ?> context, Runnable action) {
        if (!(context instanceof InternalProcessorContext<?, ?> internal)) {
            this.action = null;
            return false;
        }
        if (internal.currentNode() == null) {
            log.warn("{}: Kafka Streams made no processor current while initializing one; records are sent per "
                    + "input, not per commit", name);
            this.action = null;
            return false;
        }
        ProcessorNode<?, ?, ?, ?> node = internal.currentNode();
        this.action = () -> {
            ProcessorNode<?, ?, ?, ?> previousNode = internal.currentNode();
            ProcessorRecordContext previousRecord = internal.recordContext();
            internal.setCurrentNode(node);
            internal.setRecordContext(new ProcessorRecordContext(internal.currentSystemTimeMs(), -1L, -1, null,
                    new RecordHeaders()));
            try {
                action.run();
            } finally {
                internal.setRecordContext(previousRecord);
                internal.setCurrentNode(previousNode);
            }
        };
        return true;
    }

    /** Runs no action from now on (the processor closed). */
    void unwatch() {
        action = null;
    }

    /** Kafka Streams calls this just before it commits the task: the action runs. */
    @Override
    public void flushCache() {
        Runnable run = action;
        if (run != null) {
            run.run();
        }
    }

    @Override
    public boolean setFlushListener(CacheFlushListener<Object, Object> listener, boolean sendOldValues) {
        return false;
    }

    @Override
    public void clearCache() {
        // nothing is cached
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        context.register(root, (key, value) -> {
            throw new IllegalStateException(name + " has no changelog to restore");
        });
        open = true;
    }

    @Override
    public void close() {
        action = null;
        open = false;
    }

    @Override
    public boolean persistent() {
        return false;
    }

    @Override
    public boolean isOpen() {
        return open;
    }
}
