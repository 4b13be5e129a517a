package io.cronoq.agent.process;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;

/**
 * The parents' results of an attempt, in a file its child reads ({@code CRONOQ_PARENT_RESULTS} names it): one JSON
 * object from each parent's task id to its result as text, or, for a result that is not UTF-8 text, to
 * {@code {"base64": "..."}}. Readable by the worker's user only, and deleted when the attempt ends.
 */
final class ParentResultsFile implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path path;

    private ParentResultsFile(Path path) {
        this.path = path;
    }

    /** Writes the results of the attempt {@code name} to a new file. */
    static ParentResultsFile write(String name, Map<String, byte[]> results) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        results.forEach((parent, bytes) -> {
            String text = utf8(bytes);
            if (text != null) {
                root.put(parent, text);
            } else {
                root.putObject(parent).put("base64", Base64.getEncoder().encodeToString(bytes));
            }
        });
        Path path;
        try {
            path = Files.createTempFile("cronoq-parents-" + name + "-", ".json",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            path = Files.createTempFile("cronoq-parents-" + name + "-", ".json");
        }
        Files.write(path, JSON.writeValueAsBytes(root));
        return new ParentResultsFile(path);
    }

    Path path() {
        return path;
    }

    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        Files.deleteIfExists(path);
    }
}
