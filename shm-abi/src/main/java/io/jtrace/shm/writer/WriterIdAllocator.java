package io.jtrace.shm.writer;

import io.jtrace.shm.abi.ChunkHeader;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Hands out writer ids 1..32767 and takes them back, lock-free: one bit per id in an
 * {@link AtomicLongArray}, set and cleared by CAS. Id 0 is never handed out (it means "no writer").
 */
public final class WriterIdAllocator {
    private static final int WORDS = (ChunkHeader.MAX_WRITER_ID + 1 + 63) / 64;

    private final AtomicLongArray used = new AtomicLongArray(WORDS);

    public WriterIdAllocator() {
        used.set(0, 1L); // reserve id 0
    }

    /** A free id, or -1 when all 32767 are in use. */
    public int allocate() {
        for (int w = 0; w < WORDS; w++) {
            while (true) {
                long bits = used.get(w);
                long free = ~bits;
                if (free == 0) {
                    break;
                }
                int bit = Long.numberOfTrailingZeros(free);
                int id = w * 64 + bit;
                if (id > ChunkHeader.MAX_WRITER_ID) {
                    break;
                }
                if (used.compareAndSet(w, bits, bits | (1L << bit))) {
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
