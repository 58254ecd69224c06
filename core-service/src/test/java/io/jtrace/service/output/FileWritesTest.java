package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** What a file took, as against what it was given positions for. */
class FileWritesTest {
    private static final int RANGE = 16;

    /**
     * A pipe whose reader goes away after the first write: every later write fails, having put
     * {@code takenBeforeFailing} of its bytes into the pipe first.
     */
    private static final class ReaderGoneAfterOneWrite implements FileTarget {
        private final int takenBeforeFailing;
        private int writes;

        ReaderGoneAfterOneWrite(int takenBeforeFailing) {
            this.takenBeforeFailing = takenBeforeFailing;
        }

        @Override
        public void write(ByteBuffer buffer, int length, long position) throws IOException {
            if (writes++ > 0) {
                IOException broken = new IOException("Broken pipe");
                throw takenBeforeFailing > 0 ? new PartlyWrittenException(takenBeforeFailing, broken) : broken;
            }
        }

        @Override
        public boolean positional() {
            return false;
        }

        @Override
        public void close() {}
    }

    @Test
    void aFileWhoseWritesFailedReportsTheBytesItTookNotTheBytesItWasGiven() throws Exception {
        FileLog log = new FileLog(new ReaderGoneAfterOneWrite(0), 4 * RANGE, false);
        append(log);
        log.consumeNow();
        append(log);
        append(log);
        log.consumeNow();

        assertEquals(3 * RANGE, log.position(), "positions given");
        assertEquals(RANGE, log.file().bytesWritten(), "bytes the pipe took: the first write's only");
        assertThrows(IOException.class, log::sync, "the failure is reported");
        assertThrows(IOException.class, log::close, "and again at the close");
        assertEquals(RANGE, log.file().bytesWritten(), "nothing more after the close");
    }

    /**
     * A pipe's write that put part of its bytes into the pipe before the reader went away: the part is
     * counted (the reader may have got it), and nothing after it.
     */
    @Test
    void aWriteThatFailedPartWayCountsTheBytesTheFileTookBeforeItFailed() throws Exception {
        int part = 5;
        FileLog log = new FileLog(new ReaderGoneAfterOneWrite(part), 4 * RANGE, false);
        append(log);
        log.consumeNow();
        append(log);
        log.consumeNow();

        assertEquals(2 * RANGE, log.position(), "positions given");
        assertEquals(RANGE + part, log.file().bytesWritten(), "the first write, and the part of the second the pipe took");
        IOException failure = assertThrows(IOException.class, log::sync);
        assertEquals(IOException.class, failure.getCause().getClass(), "the pipe's own error is the one reported");
    }

    @Test
    void aFileWrittenToTheEndTookEveryByteItWasGiven() throws Exception {
        FileLog log = new FileLog(new FileTarget() {
            @Override
            public void write(ByteBuffer buffer, int length, long position) {}

            @Override
            public boolean positional() {
                return true;
            }

            @Override
            public void close() {}
        }, 4 * RANGE, false);
        for (int i = 0; i < 10; i++) {
            append(log);
            log.consumeNow();
        }
        log.close();
        assertEquals(10 * RANGE, log.position());
        assertEquals(10 * RANGE, log.file().bytesWritten());
    }

    private static void append(FileLog log) {
        long reservation = log.tryReserve(RANGE);
        byte[] bytes = new byte[RANGE];
        Arrays.fill(bytes, (byte) 7);
        log.put(reservation, 0, bytes, 0, RANGE);
        log.commit(reservation, RANGE, 1);
    }
}
