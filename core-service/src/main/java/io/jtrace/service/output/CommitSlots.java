package io.jtrace.service.output;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The commit slots of a {@link FileLog}: one per ticket (modulo {@link #count}), each holding the state
 * of one range of the ring, with the range's position in the ring and in the file. A slot goes
 * <ul>
 *   <li>empty (0) to <b>committed</b> (length | packets &lt;&lt; 32): the appender's release store
 *       ({@link #commit}), after it stored the positions ({@link #reserved}) and filled the range;
 *       whoever reads the slot with acquire (or CAS) sees all of it;</li>
 *   <li>to <b>claimed</b> ({@link #tryClaim}): a CAS, so one thread writes the range out;</li>
 *   <li>to <b>written</b> ({@link #markWritten}): that thread's release store, after its write;</li>
 *   <li>back to empty: a plain store by whoever hands the written prefix back ({@link #takeWritten};
 *       for a pipe, {@link #takeCommitted}), published by its release store of the consumed ticket
 *       count, which an appender reads with acquire before it reuses the slot.</li>
 * </ul>
 * A range's length is at most half the ring, so below 2^30: the claimed and written marks are the two
 * bits above it.
 */
final class CommitSlots {
    /**
     * Most commit slots a log has: more than a 4 MiB ring can hold appends of whole chunks, so bytes run
     * out first. A smaller ring has one per byte, as no range is shorter.
     */
    static final int MAX_SLOTS = 1 << 14;
    private static final long WRITTEN = 1L << 31;
    private static final long CLAIMED = 1L << 30;
    private static final long LENGTH_MASK = CLAIMED - 1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private final int mask;
    private final long[] slots;
    private final long[] filePositions;
    private final long[] ringPositions;

    /** Slots for a ring of {@code ringCapacity} bytes (a power of two). */
    CommitSlots(int ringCapacity) {
        int count = Math.min(MAX_SLOTS, ringCapacity);
        mask = count - 1;
        slots = new long[count];
        filePositions = new long[count];
        ringPositions = new long[count];
    }

    /** How many tickets may be reserved and not handed back yet. */
    int count() {
        return slots.length;
    }

    private int index(long ticket) {
        return (int) (ticket & mask);
    }

    /** The appender that reserved {@code ticket}: its range's positions (plain; published by the commit). */
    void reserved(long ticket, long ringPosition, long filePosition) {
        ringPositions[index(ticket)] = ringPosition;
        filePositions[index(ticket)] = filePosition;
    }

    void commit(long ticket, int length, int packets) {
        SLOT.setRelease(slots, index(ticket), (long) length | (long) packets << 32);
    }

    /** The slot's committed value, now claimed by this thread; 0 if it is empty, claimed or written. */
    long tryClaim(long ticket) {
        int index = index(ticket);
        long slot = (long) SLOT.getAcquire(slots, index);
        return slot == 0 || (slot & (CLAIMED | WRITTEN)) != 0 || !SLOT.compareAndSet(slots, index, slot, slot | CLAIMED)
                ? 0 : slot;
    }

    /** Of a slot this thread claimed or committed-and-read: where its range is. */
    long filePosition(long ticket) {
        return filePositions[index(ticket)];
    }

    long ringPosition(long ticket) {
        return ringPositions[index(ticket)];
    }

    /** A claimed slot's range is in the file: returns its packets. */
    long markWritten(long ticket) {
        int index = index(ticket);
        long slot = slots[index];
        SLOT.setRelease(slots, index, slot & ~CLAIMED | WRITTEN);
        return packets(slot);
    }

    /** Empties a written slot and returns its length; -1, leaving it, if it is not written. */
    long takeWritten(long ticket) {
        int index = index(ticket);
        // Acquire: pairs with the writer's release store of WRITTEN, after its write.
        long slot = (long) SLOT.getAcquire(slots, index);
        if ((slot & WRITTEN) == 0) {
            return -1;
        }
        // Opaque: a claimer may read the slot meanwhile; the release store of the consumed count publishes it.
        SLOT.setOpaque(slots, index, 0L);
        return length(slot);
    }

    /** A pipe's consumer: empties a committed slot and returns its value; 0 if it is not committed. */
    long takeCommitted(long ticket) {
        int index = index(ticket);
        long slot = (long) SLOT.getAcquire(slots, index);
        if (slot != 0) {
            SLOT.setOpaque(slots, index, 0L);
        }
        return slot;
    }

    static int length(long slot) {
        return (int) (slot & LENGTH_MASK);
    }

    static long packets(long slot) {
        return slot >>> 32;
    }
}
