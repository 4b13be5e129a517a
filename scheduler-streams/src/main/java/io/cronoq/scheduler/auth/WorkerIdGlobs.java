package io.cronoq.scheduler.auth;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The worker ids a worker credential may register under, as globs where {@code *} stands for any
 * run of characters ({@code gpu-eu-*}, {@code build-7}). Binding ids to credentials stops one
 * fleet's token from registering under another fleet's worker ids (which would fence them).
 */
record WorkerIdGlobs(List<String> globs, List<Pattern> patterns) {

    /** Parses the globs; a blank one, or one with whitespace, is refused naming it. */
    static WorkerIdGlobs of(List<String> globs) {
        List<Pattern> patterns = globs.stream().map(WorkerIdGlobs::compile).toList();
        return new WorkerIdGlobs(List.copyOf(globs), patterns);
    }

    boolean allows(String workerId) {
        return patterns.stream().anyMatch(p -> p.matcher(workerId).matches());
    }

    private static Pattern compile(String glob) {
        if (glob.isBlank() || glob.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("worker id pattern '" + glob
                    + "' is blank or has whitespace; write an id, or a glob such as gpu-eu-*");
        }
        StringBuilder regex = new StringBuilder();
        String[] parts = glob.split("\\*", -1);
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                regex.append(".*"); // a '*' stood between this part and the one before
            }
            regex.append(Pattern.quote(parts[i]));
        }
        return Pattern.compile(regex.toString());
    }

    @Override
    public String toString() {
        return globs.toString();
    }
}
