package io.cronoq.scheduler.policy;

/** Durations in words for journal causes and reasons: {@code 250ms}, {@code 30s}, {@code 2m5s}, {@code 1h}, {@code 7d}. */
final class Durations {

    private Durations() {}

    static String words(long ms) {
        if (ms < 1_000) {
            return ms + "ms";
        }
        long s = ms / 1_000;
        if (s < 60) {
            long tenths = (ms % 1_000) / 100;
            return tenths == 0 || s >= 10 ? s + "s" : s + "." + tenths + "s";
        }
        long d = s / 86_400;
        long h = (s % 86_400) / 3_600;
        long m = (s % 3_600) / 60;
        long rest = s % 60;
        StringBuilder b = new StringBuilder();
        if (d > 0) {
            b.append(d).append('d');
        }
        if (h > 0) {
            b.append(h).append('h');
        }
        if (m > 0 && d == 0) {
            b.append(m).append('m');
        }
        if (rest > 0 && h == 0 && d == 0) {
            b.append(rest).append('s');
        }
        return b.toString();
    }
}
