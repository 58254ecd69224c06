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
    private static final VarHandle DIRECT_IN_FLIGHT;
    private static final VarHandle PACKETS_WRITTEN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            POSITION = lookup.findVarHandle(FileWrites.class, "position", long.class);
            DIRECT_IN_FLIGHT = lookup.findVarHandle(FileWrites.class, "directInFlight", int.class);
            PACKETS_WRITTEN = lookup.findVarHandle(FileWrites.class, "packetsWritten", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final FileTarget target;
    private final boolean positional;
    /** Bytes the file was given positions for so far. */
    @SuppressWarnings("unused")
    private volatile long position;
    /** Writes past the ring under way: {@link #close} waits for them before it closes the file. */
    @SuppressWarnings("unused")
    private volatile int directInFlight;
    @SuppressWarnings("unused")
    private volatile long packetsWritten;
    /** The first failed write; afterwards writes are skipped. */
    private volatile IOException failure;
    private volatile boolean closed;
    /** Set while a flush waits for the writes past the ring under way: new ones are refused meanwhile. */
    private volatile boolean draining;

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
        } catch (Throwable t) {
            fail(t);
        }
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
     * ({@link #endDirect}). Returns the position, or -1 when the file is a pipe, closed or failed. A
     * thread descheduled in its write holds back nothing but its own bytes.
     */
    long reserveDirect(int length) {
        if (!positional) {
            return -1;
        }
        // Counted in (a volatile add) before closed and draining are read (volatile): see close and
        // drainDirect.
        DIRECT_IN_FLIGHT.getAndAdd(this, 1);
        if (closed || draining || failure != null) {
            DIRECT_IN_FLIGHT.getAndAdd(this, -1);
            return -1;
        }
        return take(length);
    }

    /** Writes {@code src[offset, offset + length)} (absolute indexes) at file position {@code position}. */
    void writeDirect(long position, ByteBuffer src, int offset, int length) {
        write(src.slice(offset, length), length, position);
    }

    void writeDirect(long position, byte[] src, int offset, int length) {
        write(ByteBuffer.wrap(src, offset, length).slice(), length, position);
    }

    /** A write past the ring ({@link #reserveDirect}) is done: its {@code packets} are in the file. */
    void endDirect(int packets) {
        addPackets(packets);
        DIRECT_IN_FLIGHT.getAndAdd(this, -1);
    }

    /**
     * A flush: waits for the writes past the ring under way, refusing new ones meanwhile (their
     * appenders wait for room in the ring instead), so the file has no gap below what was reserved.
     * The service's thread only, as {@link #close}.
     */
    void drainDirect() {
        // As in close: the volatile store of draining, then volatile loads of the count.
        draining = true;
        awaitDirectWrites();
        draining = false;
    }

    private void awaitDirectWrites() {
        for (int attempt = 0; directInFlight > 0; attempt++) {
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
        awaitDirectWrites();
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
