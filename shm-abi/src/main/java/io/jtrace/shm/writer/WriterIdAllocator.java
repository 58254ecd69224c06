package io.jtrace.shm.writer;

import io.jtrace.shm.abi.ChunkHeader;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Hands out writer ids 1..32767 and takes them back, lock-free: one bit per id in an
 * {@link AtomicLongArray}, set and cleared by CAS. Id 0 is never handed out (it means "no writer").
 *
 * <p>Allocation goes round-robin from where the last one ended, so a freed id comes back only after
 * all others were used: a new writer with a recycled id restarts at chunk id 0, and the service must
 * not mistake its chunks for the old writer's still in a buffer.
 */
public final class WriterIdAllocator {
    private static final int WORDS = (ChunkHeader.MAX_WRITER_ID + 1 + 63) / 64;

    private final AtomicLongArray used = new AtomicLongArray(WORDS);
    /** Where the next search starts: one past the last id handed out, minus one (ids are 1-based). */
    private final AtomicInteger cursor = new AtomicInteger();

    public WriterIdAllocator() {
        used.set(0, 1L); // reserve id 0
    }

    /** A free id, or -1 when all 32767 are in use. */
    public int allocate() {
        int start = cursor.get();
        for (int i = 0; i < ChunkHeader.MAX_WRITER_ID; i++) {
            int id = 1 + (start + i) % ChunkHeader.MAX_WRITER_ID;
            int w = id / 64;
            long mask = 1L << (id % 64);
            while (true) {
                long bits = used.get(w);
                if ((bits & mask) != 0) {
                    break;
                }
                if (used.compareAndSet(w, bits, bits | mask)) {
                    // A racy cursor only changes where the next search starts, never who owns an id.
                    cursor.set(id % ChunkHeader.MAX_WRITER_ID);
                    return id;
                }
            }
        }
        return -1;
    }

    public void free(int id) {
        if (id <= 0 || id > ChunkHeader.MAX_WRITER_ID) {
            throw new IllegalArgumentException("not a writer id: " + id);
        }
        int w = id / 64;
        long mask = 1L << (id % 64);
        while (true) {
            long bits = used.get(w);
            if ((bits & mask) == 0) {
                throw new IllegalStateException("writer id " + id + " freed twice");
            }
            if (used.compareAndSet(w, bits, bits & ~mask)) {
                return;
            }
        }
    }
}
