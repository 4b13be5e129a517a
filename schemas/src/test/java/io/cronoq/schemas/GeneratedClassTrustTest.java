package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.events.TaskSubmitted;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * In a class loader of its own (fresh Avro, fresh cronoq classes, as in a new JVM without any flag), the generated
 * classes are usable before any serde exists: a builder fills its enum default and a record decodes.
 */
class GeneratedClassTrustTest {

    @Test
    void generatedClassesTrustThemselvesInAFreshClassLoader() throws Exception {
        try (URLClassLoader fresh = new URLClassLoader(new URL[] {
                location(TaskSubmitted.class), location(Schema.class), location(JsonFactory.class),
                location(ObjectMapper.class), location(JsonProperty.class), location(LoggerFactory.class)},
                ClassLoader.getPlatformClassLoader())) {
            Class<?> taskSubmitted = fresh.loadClass(TaskSubmitted.class.getName());
            assertThat(taskSubmitted).isNotSameAs(TaskSubmitted.class);

            Object builder = taskSubmitted.getMethod("newBuilder").invoke(null);
            builder.getClass().getMethod("setTaskId", String.class).invoke(builder, "t-1");
            builder.getClass().getMethod("setPool", String.class).invoke(builder, "gpu");
            builder.getClass().getMethod("setSubmittedAt", Instant.class).invoke(builder, Instant.EPOCH);
            Object task = builder.getClass().getMethod("build").invoke(builder);

            Method toBytes = taskSubmitted.getMethod("toByteBuffer");
            ByteBuffer bytes = (ByteBuffer) toBytes.invoke(task);
            Object decoded = taskSubmitted.getMethod("fromByteBuffer", ByteBuffer.class).invoke(null, bytes);

            assertThat(decoded).isEqualTo(task);
            assertThat(taskSubmitted.getMethod("getPriority").invoke(decoded)).hasToString("NORMAL");
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
