package io.jtrace.service.output;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * The file under a {@link FileLog}: where each append goes in it, and the writes into it. Positions are
 * taken by one atomic add: by the ring's appends when they reserve their space ({@link #take}), and by
 * appenders that found the ring full and write their bytes into the file themselves
 * ({@link #reserveDirect}). Any thread writes, each at its own position (a pipe only from the ring, in
 * order); the first failure is kept and every later write skipped. The packets written are counted here.
 */
final class FileWrites {
    private static final VarHandle POSITION;
    private static final VarHandle IN_FLIGHT = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle PACKETS_WRITTEN;
    private static final VarHandle BYTES_WRITTEN;
    /** A write past the ring's reservation: its position, and its epoch in this bit. */
    private static final int EPOCH_SHIFT = 62;
    private static final long POSITION_MASK = (1L << EPOCH_SHIFT) - 1;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            POSITION = lookup.findVarHandle(FileWrites.class, "position", long.class);
            PACKETS_WRITTEN = lookup.findVarHandle(FileWrites.class, "packetsWritten", long.class);
            BYTES_WRITTEN = lookup.findVarHandle(FileWrites.class, "bytesWritten", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final FileTarget target;
    private final boolean positional;
    /** Bytes the file was given positions for so far. */
    @SuppressWarnings("unused")
    private volatile long position;
    /**
     * Writes past the ring under way, counted per epoch: a flush flips {@link #epoch} and waits for the
     * old epoch's count to drop to 0 while new writes count in the new one ({@link #drainDirect});
     * {@link #close} waits for both.
     */
    private final int[] inFlight = new int[2];
    private volatile int epoch;
    @SuppressWarnings("unused")
    private volatile long packetsWritten;
    /** Bytes the file took: what the writes that did not fail wrote (any thread adds). */
    private volatile long bytesWritten;
    /** The first failed write; afterwards writes are skipped. */
    private volatile IOException failure;
    private volatile boolean closed;

    FileWrites(FileTarget target) {
        this.target = target;
        this.positional = target.positional();
    }

    /** Whether the file takes writes at any position (a regular file), not only in order (a pipe). */
    boolean positional() {
        return positional;
    }

    /** Bytes given positions so far: what the file holds once everything appended is written. */
    long position() {
        return position;
    }

    /** The position of the next {@code length} bytes. */
    long take(long length) {
        return (long) POSITION.getAndAdd(this, length);
    }

    long packetsWritten() {
        return packetsWritten;
    }

    void addPackets(long packets) {
        PACKETS_WRITTEN.getAndAdd(this, packets);
    }

    boolean failed() {
        return failure != null;
    }

    /** Writes {@code bytes}' [0, {@code length}) at {@code position}, unless a write failed before; keeps the failure. */
    void write(ByteBuffer bytes, int length, long position) {
        if (failure != null) {
            return;
        }
        try {
            target.write(bytes, length, position);
            BYTES_WRITTEN.getAndAdd(this, (long) length);
        } catch (PartlyWrittenException e) {
            // Counted before the failure is kept: whoever sees the failure sees these bytes counted too.
            BYTES_WRITTEN.getAndAdd(this, e.written());
            fail(e.getCause());
        } catch (Throwable t) {
            fail(t);
        }
    }

    /**
     * Bytes the file took: once everything given a position is written, all of {@link #position()};
     * after a failure, only what the writes before it wrote (into a pipe, the bytes its reader got).
     */
    long bytesWritten() {
        return bytesWritten;
    }

    /** Keeps {@code t} as the failure, if there was none: the file takes no more writes. */
    void fail(Throwable t) {
        if (failure == null) {
            failure = t instanceof IOException e ? e : new IOException(t);
        }
    }

    /**
     * For an appender that found the ring full, in a file written at positions: reserves {@code length}
     * bytes outside the ring, to write there itself ({@link #writeDirect}) and then end
     * ({@link #endDirect}). Returns the reservation, or -1 when the file is a pipe, closed or failed. A
     * thread descheduled in its write holds back nothing but its own bytes (and a flush, which waits
     * for it).
     */
    long reserveDirect(int length) {
        if (!positional) {
            return -1;
        }
        while (true) {
            int counted = epoch;
            // Counted in (a volatile add) before closed and the epoch are read again (volatile): a flush
            // or close that changed them after this add sees the count (see drainDirect, close).
            IN_FLIGHT.getAndAdd(inFlight, counted, 1);
            if (closed || failure != null) {
                IN_FLIGHT.getAndAdd(inFlight, counted, -1);
                return -1;
            }
            if (epoch == counted) {
                return take(length) | (long) counted << EPOCH_SHIFT;
            }
            // A flush flipped the epoch meanwhile: count in the new one, which it does not wait for.
            IN_FLIGHT.getAndAdd(inFlight, counted, -1);
        }
    }

    /** Writes {@code src[0, length)}, the whole of a reservation past the ring, in one write. */
    void writeDirect(long reservation, byte[] src, int length) {
        write(ByteBuffer.wrap(src, 0, length), length, reservation & POSITION_MASK);
    }

    /** The writes of a reservation past the ring ({@link #reserveDirect}) are done: they held {@code packets} packets. */
    void endDirect(long reservation, int packets) {
        addPackets(packets);
        IN_FLIGHT.getAndAdd(inFlight, (int) (reservation >>> EPOCH_SHIFT), -1);
    }

    /**
     * A flush: waits for the writes past the ring under way when it began, so the file has no gap below
     * what was reserved before; writes begun since count in the next epoch and are not waited for. The
     * service's thread only, as {@link #close}.
     */
    void drainDirect() {
        int old = epoch;
        // The volatile store of the new epoch, then volatile loads of the old epoch's count.
        epoch = 1 - old;
        awaitDirectWrites(old);
    }

    private void awaitDirectWrites(int inEpoch) {
        for (int attempt = 0; (int) IN_FLIGHT.getVolatile(inFlight, inEpoch) > 0; attempt++) {
            if (attempt < 64) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /**
     * Once the ring is written out: refuses writes past it from now on, waits for those under way, and
     * closes the file (a failure to close is kept as the failure, if there was none).
     */
    void close() {
        // Volatile store of closed, then volatile loads of the count: a write past the ring that counted
        // itself in before it read closed is waited for; any later one sees closed and gives up.
        closed = true;
        awaitDirectWrites(0);
        awaitDirectWrites(1);
        try {
            target.close();
        } catch (IOException e) {
            fail(e);
        }
    }

    void throwIfFailed() throws IOException {
        IOException e = failure;
        if (e != null) {
            throw new IOException("writing the trace file failed: " + e.getMessage(), e);
        }
    }
}
