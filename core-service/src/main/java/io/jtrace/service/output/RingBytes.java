package io.jtrace.service.output;

import java.nio.ByteBuffer;

/**
 * The bytes of a {@link FileLog}'s ring: direct memory addressed by ring position (bytes ever reserved,
 * taken modulo the capacity), so a range that runs past the end continues at the start. It keeps no
 * state of its own: who may copy into or write out which range is {@link FileLog}'s protocol.
 */
final class RingBytes {
    private final ByteBuffer ring;
    private final int capacity;

    /** {@code capacity}: a power of two. */
    RingBytes(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.capacity = capacity;
        this.ring = TraceFileChannel.newBuffer(capacity);
    }

    int capacity() {
        return capacity;
    }

    /** Copies {@code src[offset, offset + length)} to ring position {@code at}. */
    void put(long at, byte[] src, int offset, int length) {
        int index = indexOf(at);
        int first = Math.min(length, capacity - index);
        ring.put(index, src, offset, first);
        if (first < length) {
            ring.put(0, src, offset + first, length - first);
        }
    }

    /** Copies {@code src[offset, offset + length)} (absolute indexes) to ring position {@code at}. */
    void put(long at, ByteBuffer src, int offset, int length) {
        int index = indexOf(at);
        int first = Math.min(length, capacity - index);
        ring.put(index, src, offset, first);
        if (first < length) {
            ring.put(0, src, offset + first, length - first);
        }
    }

    /**
     * Writes {@code length} bytes from ring position {@code ringStart} to file position
     * {@code filePosition} (nothing once the file failed).
     */
    void writeTo(FileWrites file, long ringStart, int length, long filePosition) {
        int from = indexOf(ringStart);
        int first = Math.min(length, capacity - from);
        file.write(ring.slice(from, first), first, filePosition);
        if (first < length) {
            file.write(ring.slice(0, length - first), length - first, filePosition + first);
        }
    }

    private int indexOf(long position) {
        return (int) (position & capacity - 1);
    }
}
