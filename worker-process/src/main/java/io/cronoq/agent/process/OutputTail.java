package io.cronoq.agent.process;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Keeps the last {@code capacity} bytes of a stream it drains, so a chatty child never fills memory or blocks. */
final class OutputTail {

    private final byte[] ring;
    private long written;

    OutputTail(int capacity) {
        this.ring = new byte[capacity];
    }

    /** Reads {@code in} to its end, keeping the tail. */
    void drain(InputStream in) throws IOException {
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) != -1) {
            append(buffer, n);
        }
    }

    private synchronized void append(byte[] bytes, int length) {
        for (int i = 0; i < length; i++) {
            ring[(int) (written++ % ring.length)] = bytes[i];
        }
    }

    /** The kept bytes, oldest first. */
    synchronized byte[] bytes() {
        int size = (int) Math.min(written, ring.length);
        byte[] out = new byte[size];
        int start = (int) ((written - size) % ring.length);
        for (int i = 0; i < size; i++) {
            out[i] = ring[(start + i) % ring.length];
        }
        return out;
    }

    /** The kept bytes as UTF-8 text, marked when the start was cut. */
    synchronized String text() {
        String text = new String(bytes(), StandardCharsets.UTF_8);
        return written > ring.length ? "..." + text : text;
    }
}
