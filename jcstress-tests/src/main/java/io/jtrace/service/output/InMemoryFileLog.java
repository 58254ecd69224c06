package io.jtrace.service.output;

import java.nio.ByteBuffer;

/**
 * {@link FileLog}s for the jcstress tests: small rings, no file thread, written into memory at each range's position, so a test
 * can afford one per state and read back exactly what the file got. Lives in the log's package to reach it.
 */
public final class InMemoryFileLog {
    private byte[] file = new byte[0];
    private int fileLength;
    private boolean closed;
    private boolean writtenAfterClose;
    private final FileLog log;
    private FileThread sleeper;

    /** A log whose ring holds {@code capacity} bytes (a power of two). */
    public InMemoryFileLog(int capacity) {
        FileTarget target = new FileTarget() {
            /** Synchronized, as a file's own writes at positions are atomic to each other. */
            @Override
            public void write(ByteBuffer buffer, int length, long position) {
                synchronized (InMemoryFileLog.this) {
                    writtenAfterClose |= closed;
                    writeAt(buffer, length, position);
                }
            }

            private void writeAt(ByteBuffer buffer, int length, long position) {
                int end = (int) position + length;
                if (end > file.length) {
                    file = java.util.Arrays.copyOf(file, Math.max(end, file.length * 2));
                }
                buffer.duplicate().clear().limit(length).get(file, (int) position, length);
                fileLength = Math.max(fileLength, end);
            }

            @Override
            public boolean positional() {
                return true;
            }

            @Override
            public void close() {
                synchronized (InMemoryFileLog.this) {
                    closed = true;
                }
            }
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

    /**
     * A file thread for this log that is never started, going to sleep once {@code streamBytes} or more
     * are unwritten: the two halves of its sleep protocol run on the test's threads.
     */
    public void withFileThread(int streamBytes) {
        sleeper = new FileThread(log, streamBytes, false);
    }

    /** The file thread announces its sleep, writes out what is committed and looks again: whether it would park. */
    public boolean fileThreadWouldSleep() {
        return sleeper.announceSleep();
    }

    /** An appender's wake after a commit that crossed a boundary: whether it woke the file thread. */
    public boolean wakeFileThreadIfAsleep() {
        return sleeper.wakeIfAsleep();
    }

    /** Writes whatever is committed now, as the file thread does. */
    public void consume() {
        log.consumeNow();
    }

    /** What an appender that found the ring full does first: whether it wrote or handed back anything. */
    public boolean makeRoom() {
        return log.makeRoom();
    }

    /** Writes everything reserved so far, waiting for its commits, as a flush does. */
    public void sync() {
        try {
            log.sync();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reserves {@code length} bytes without filling or committing them (an appender descheduled before
     * its copy); -1 if the ring had no room. Fill and commit with {@link #fillAndCommit}.
     */
    public long reserve(int length) {
        return log.tryReserve(length);
    }

    /** Fills a reservation with {@code value} and commits it. */
    public void fillAndCommit(long reservation, int length, byte value) {
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, value);
        log.put(reservation, 0, bytes, 0, length);
        log.commit(reservation, length, 1);
    }

    /**
     * Writes {@code length} bytes of {@code value} past the ring, as an appender that found it full
     * does; false if the log refused (closed).
     */
    public boolean tryDirect(int length, byte value) {
        return tryDirectInEpoch(length, value) >= 0;
    }

    /**
     * {@link #tryDirect}, answering the epoch its write counted in (the top bit of its reservation:
     * 0 before a flush's flip, 1 after it), or -1 if refused.
     */
    public int tryDirectInEpoch(int length, byte value) {
        long reservation = log.file().reserveDirect(length);
        if (reservation < 0) {
            return -1;
        }
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, value);
        log.file().writeDirect(reservation, bytes, length);
        log.file().endDirect(reservation, 1);
        return (int) (reservation >>> 62);
    }

    /** What a flush does for the writes past the ring: waits for those under way when it began. */
    public void drainDirect() {
        log.file().drainDirect();
    }

    /** Closes the log, as the session's end does. */
    public void close() {
        try {
            log.close();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether any write reached the file after it was closed. */
    public synchronized boolean writtenAfterClose() {
        return writtenAfterClose;
    }

    public long packetsWritten() {
        return log.packetsWritten();
    }

    /** Everything the file got so far (a hole not written yet reads as zeros). */
    public synchronized byte[] file() {
        return java.util.Arrays.copyOf(file, fileLength);
    }
}
