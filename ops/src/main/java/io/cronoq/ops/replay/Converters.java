package io.cronoq.ops.replay;

import java.util.function.Function;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** What the replay commands' picocli converters share: a value the parser refuses is a usage error naming the flag. */
final class Converters {

    private Converters() {}

    /** {@code parse} of {@code value}; its {@link IllegalArgumentException} becomes a usage error with the same message. */
    static <T> T parsed(String value, Function<String, T> parse) {
        try {
            return parse.apply(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    /** A picocli converter that is {@code parse}: a value it refuses is a usage error with its message. */
    abstract static class Parsing<T> implements ITypeConverter<T> {

        private final Function<String, T> parse;

        Parsing(Function<String, T> parse) {
            this.parse = parse;
        }

        @Override
        public final T convert(String value) {
            return parsed(value, parse);
        }
    }
}
