package io.jtrace.shm.writer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A writer's count of the packets it dropped, and of those, the ones that described (sequence headers,
 * track descriptors) rather than recorded the caller's events. The writer's thread counts; any thread
 * reads what the caller lost ({@link #droppedRecords}).
 *
 * <h2>Ordering</h2>
 * The owner writes {@link #descriptive} (opaque, so no reader sees half a long) before the release
 * store of {@link #all} that counts the same drop; a reader loads {@link #all} with acquire, then
 * {@link #descriptive}: it sees every descriptive drop counted before the total it read, so it never
 * counts a descriptive packet as a record (it may miss a drop for a moment).
 */
final class DropCount {
    private static final VarHandle ALL;
    private static final VarHandle DESCRIPTIVE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ALL = lookup.findVarHandle(DropCount.class, "all", long.class);
            DESCRIPTIVE = lookup.findVarHandle(DropCount.class, "descriptive", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Every packet dropped: the owner's release store, others' acquire load. */
    private long all;
    /** Of {@link #all}, those dropped while {@link #describing}: opaque. */
    private long descriptive;
    private boolean describing;

    /** Owner thread: whether the packets begun from now on describe rather than record. */
    void describing(boolean on) {
        describing = on;
    }

    /** Owner thread: one packet dropped. */
    void count() {
        if (describing) {
            DESCRIPTIVE.setOpaque(this, descriptive + 1);
        }
        // Release: publishes the descriptive count above to a reader that loads this with acquire.
        ALL.setRelease(this, all + 1);
    }

    /** Owner thread: every packet dropped. */
    long all() {
        return all;
    }

    /** Any thread: the packets dropped while not describing (see the class comment). */
    long droppedRecords() {
        long total = (long) ALL.getAcquire(this);
        return Math.max(0, total - (long) DESCRIPTIVE.getOpaque(this));
    }
}
