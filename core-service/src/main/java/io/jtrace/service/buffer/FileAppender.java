package io.jtrace.service.buffer;

import java.nio.ByteBuffer;

/**
 * A trace file as threads other than the service's append to it ({@link Promotion}): whole frames,
 * into space reserved without a lock and without waiting, then filled, then committed. The file keeps
 * the order in which the space was reserved.
 */
public interface FileAppender {
    /** {@link #tryReserve}'s answer when the file's ring is full now (other negative answers: closed or failed). */
    long FULL = -1;

    /** Reserves {@code length} bytes (at least 1): the reservation, or a negative number when not now. */
    long tryReserve(int length);

    /** Fills {@code at} bytes into a reservation with {@code src}'s bytes at absolute {@code [offset, offset + length)}. */
    void put(long reservation, int at, ByteBuffer src, int offset, int length);

    void put(long reservation, int at, byte[] src, int offset, int length);

    /** The reservation's {@code length} bytes are filled and hold {@code packets} packets. */
    void commit(long reservation, int length, int packets);

    /**
     * {@link #tryReserve} answered {@link #FULL}: reserves {@code length} bytes in the file past the
     * ring, for this thread to write itself ({@link #writeDirect}) and then end ({@link #endDirect}).
     * The reservation, or a negative number when the file cannot take it so (a pipe, closed or failed).
     */
    long reserveDirect(int length);

    /** Writes {@code src[0, length)}, the whole of a reservation past the ring, in one write. */
    void writeDirect(long reservation, byte[] src, int length);

    /** The writes of a reservation past the ring ({@link #reserveDirect}) are done: they held {@code packets} packets. */
    void endDirect(long reservation, int packets);

    /** Bytes the file holds once everything appended so far is written. */
    long bytes();

    /**
     * The ring is full: writes out the committed ranges at its front (a regular file), or wakes the
     * thread that writes the ring into the file; returns whether this thread wrote or handed back anything.
     */
    boolean makeRoom();
}
