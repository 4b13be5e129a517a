package io.cronoq.bench;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The stream-thread metrics that tell where a Kafka Streams app's time goes: commit, poll and
 * process latency, records per poll, and how long its producer blocked (flushes at commit under
 * exactly-once), summed over the app's threads where there are several; and, per source and sink
 * node, how long after its timestamp a record reached it ({@code record-e2e-latency-avg}, averaged
 * over the stream tasks that saw records), which splits a record's latency into the part before
 * the app processed it and the part after its output was written.
 */
final class StreamThreadMetrics {

    private static final List<String> THREAD = List.of("commit-latency-avg", "commit-latency-max", "commit-rate",
            "poll-latency-avg", "poll-records-avg", "process-latency-avg", "process-rate", "process-records-avg",
            "punctuate-latency-avg", "blocked-time-ns-total");
    private static final List<String> PRODUCER = List.of("flush-time-ns-total", "txn-commit-time-ns-total",
            "txn-send-offsets-time-ns-total", "record-retry-total", "request-latency-avg");

    private StreamThreadMetrics() {}

    static Map<String, Double> of(KafkaStreams streams) {
        Map<String, Double> out = new TreeMap<>();
        Map<String, double[]> e2e = new TreeMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : streams.metrics().entrySet()) {
            MetricName name = e.getKey();
            if (name.name().equals("record-e2e-latency-avg") && e.getValue().metricValue() instanceof Number n
                    && !Double.isNaN(n.doubleValue())) {
                double[] sumAndCount = e2e.computeIfAbsent(name.tags().get("processor-node-id"), k -> new double[2]);
                sumAndCount[0] += n.doubleValue();
                sumAndCount[1]++;
                continue;
            }
            boolean thread = name.group().equals("stream-thread-metrics") && THREAD.contains(name.name());
            boolean producer = name.group().equals("producer-metrics") && PRODUCER.contains(name.name());
            if ((thread || producer) && e.getValue().metricValue() instanceof Number n) {
                out.merge((producer ? "producer." : "thread.") + name.name(), n.doubleValue(), Double::sum);
            }
        }
        e2e.forEach((node, sumAndCount) -> out.put("e2e-latency-avg." + node, sumAndCount[0] / sumAndCount[1]));
        return out;
    }
}
