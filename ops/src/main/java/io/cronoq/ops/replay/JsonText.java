package io.cronoq.ops.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;

/** The JSON text of what the replay commands print: a node as its mapper writes it. */
final class JsonText {

    private JsonText() {}

    /** {@code node} as {@code mapper} writes it (indented or on one line, as it is configured). */
    static String of(ObjectMapper mapper, JsonNode node) {
        try {
            return mapper.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
