package io.cronoq.bench.chaos;

import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A steady stream of valid tasks over some pools, one every {@code periodMs}, until stopped; it keeps
 * the ids of every task the broker acknowledged, so a test can check each of them finished.
 */
final class SteadyLoad implements AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "steady-load");
        t.setDaemon(true);
        return t;
    });
    private final List<String> acknowledged = new CopyOnWriteArrayList<>();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong next = new AtomicLong();

    private SteadyLoad(String bootstrap, Topics topics, String prefix, List<String> pools, long periodMs) {
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 1,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1),
                new StringSerializer(), new ByteArraySerializer());
        String topic = topics.submissions().name();
        timer.scheduleAtFixedRate(() -> {
            long k = next.getAndIncrement();
            String pool = pools.get((int) (k % pools.size()));
            String id = prefix + "-t" + k;
            TaskSubmitted task = TaskSubmitted.newBuilder().setTaskId(id).setPool(pool)
                    .setSubmittedAt(Instant.now()).build();
            byte[] value = topics.submissions().valueSerde().serializer().serialize(topic, new SubmissionEvent(task));
            producer.send(new ProducerRecord<>(topic, pool, value), (meta, error) -> {
                if (error == null) {
                    acknowledged.add(id);
                } else {
                    failures.incrementAndGet();
                }
            });
        }, 0, periodMs, TimeUnit.MILLISECONDS);
    }

    /** Starts submitting one task every {@code periodMs} to the pools in turn. */
    static SteadyLoad start(String bootstrap, Topics topics, String prefix, List<String> pools, long periodMs) {
        return new SteadyLoad(bootstrap, topics, prefix, pools, periodMs);
    }

    /** Stops submitting and waits for the last acknowledgements. */
    void stop() {
        timer.shutdown();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.flush();
    }

    /** Ids of the tasks the broker acknowledged. */
    List<String> submitted() {
        return List.copyOf(acknowledged);
    }

    long failures() {
        return failures.get();
    }

    @Override
    public void close() {
        stop();
        producer.close();
    }
}
