package io.jtrace.service.output;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * {@link FileLog}s for the jcstress tests: small rings, no file thread, written into memory, so a test
 * can afford one per state and read back exactly what the file got. Lives in the log's package to reach it.
 */
public final class InMemoryFileLog {
    private final ByteArrayOutputStream file = new ByteArrayOutputStream();
    private final FileLog log;

    /** A log whose ring holds {@code capacity} bytes (a power of two). */
    public InMemoryFileLog(int capacity) {
        FileTarget target = new FileTarget() {
            @Override
            public void write(ByteBuffer buffer, int length) {
                ByteBuffer source = buffer.duplicate().clear().limit(length);
                byte[] bytes = new byte[length];
                source.get(bytes);
                file.write(bytes, 0, length);
            }

            @Override
            public void close() {}
        };
        log = new FileLog(target, capacity, false);
    }

    /** Reserves, fills with {@code value} and commits {@code length} bytes; false if the ring had no room. */
    public boolean tryAppend(int length, byte value) {
        long reservation = log.tryReserve(length);
        if (reservation < 0) {
            return false;
        }
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, value);
        log.put(reservation, 0, bytes, 0, length);
        log.commit(reservation, length, 1);
        return true;
    }

    /** Writes whatever is committed now, as the file thread does. */
    public void consume() {
        log.consumeNow();
    }

    /** Writes everything reserved so far, waiting for its commits, as a flush does. */
    public void sync() {
        try {
            log.sync();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Everything the file got so far. */
    public byte[] file() {
        return file.toByteArray();
    }
}
