package io.cronoq.schemas;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParser;

/** The released versions of the schemas, {@code src/test/resources/released/v<n>/}, oldest first. */
public final class ReleasedSchemas {

    private ReleasedSchemas() {
    }

    /** The directories of the released versions, oldest first. */
    public static List<Path> versions() throws IOException, URISyntaxException {
        Path root = Path.of(ReleasedSchemas.class.getResource("/released").toURI());
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(Files::isDirectory)
                    .sorted((a, b) -> Integer.compare(versionNumber(a), versionNumber(b)))
                    .toList();
        }
    }

    private static int versionNumber(Path dir) {
        String name = dir.getFileName().toString();
        if (!name.matches("v\\d+")) {
            throw new IllegalStateException("Released schema directories are named v<n>, found " + dir);
        }
        return Integer.parseInt(name.substring(1));
    }

    /** Every named schema of one released version, by full name; files may reference each other in any order. */
    public static Map<String, Schema> parseAll(Path versionDir) throws IOException {
        SchemaParser parser = new SchemaParser();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(versionDir)) {
            files = walk.filter(p -> p.toString().endsWith(".avsc")).sorted().toList();
        }
        List<SchemaParser.ParseResult> results = new ArrayList<>();
        for (Path file : files) {
            results.add(parser.parse(file));
        }
        Map<String, Schema> named = new TreeMap<>();
        for (SchemaParser.ParseResult result : results) {
            Schema schema = result.mainSchema();
            named.put(schema.getFullName(), schema);
        }
        return named;
    }

}
