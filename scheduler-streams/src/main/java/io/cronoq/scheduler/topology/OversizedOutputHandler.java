package io.cronoq.scheduler.topology;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler's production exception handler, a backstop: an output too large for Kafka is logged
 * with the input that caused it and skipped; any other send error fails the thread, as by default.
 * The input rules keep outputs small (a payload is at most 512 KiB), so this fires only past them.
 *
 * <p>The skip keeps an oversized record from stopping its partition for good (the thread would fail,
 * be replaced, reread the input and fail again) only under at-least-once. Under exactly-once (the
 * default) Kafka's producer fails the whole transaction once a record of it was refused, whatever
 * this handler answers, so the commit fails and the input is read again (seen on a real broker with
 * an output topic whose {@code max.message.bytes} was below an output): there only the input rules
 * keep outputs small enough.
 */
public final class OversizedOutputHandler implements ProductionExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(OversizedOutputHandler.class);

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception error) {
        if (error instanceof RecordTooLargeException) {
            log.error("Skipped an output to {} of {} bytes that Kafka refuses as too large ({}); it was caused by "
                            + "{}-{}@{}", record.topic(), record.value() == null ? 0 : record.value().length,
                    error.getMessage(), context.topic(), context.partition(), context.offset());
            return Response.resume();
        }
        return Response.fail();
    }

    @Override
    public void configure(Map<String, ?> configs) {
        // Nothing to configure.
    }
}
