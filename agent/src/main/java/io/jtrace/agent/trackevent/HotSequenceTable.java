package io.jtrace.agent.trackevent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Finds the calling platform thread's {@link HotSequence} without a {@code ThreadLocal} lookup, which
 * costs about as much as the rest of a plain slice's bookkeeping: a direct-mapped table indexed by the
 * thread's id, one slot per thread, holding the memo of the thread that took it first.
 *
 * <p>A thread takes its slot ({@link #offer}) on the general route, once it has an own sequence, and
 * only when the slot is free: two live threads whose ids collide never evict each other, the second one
 * finds its memo through its {@code ThreadState} as before. The reaper frees an ended thread's slot
 * ({@link #remove}). A lookup trusts no id: it returns a memo only if the memo's thread is the caller.
 *
 * <h2>Ordering</h2>
 * Slots are read plainly (racy on purpose) and written by CAS. A reader may see a slot's memo before
 * any of that memo's mutable fields, but it reads only {@link HotSequence#thread}, a final field, and
 * uses the memo only if that is itself — and a thread always sees its own writes.
 */
final class HotSequenceTable {
    static final int SIZE = 1024;
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(HotSequence[].class);

    private final HotSequence[] slots = new HotSequence[SIZE];

    private static int index(long threadId) {
        return (int) threadId & (SIZE - 1);
    }

    /**
     * The memo of {@code current} (the calling thread) if it holds its slot, else null. The id only
     * picks the slot: a {@code getId()} overridden to return anything finds nothing, or the caller's memo.
     */
    HotSequence find(Thread current) {
        @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+; getId() is the same value
        long id = current.getId();
        HotSequence h = slots[index(id)];
        return h != null && h.thread == current ? h : null;
    }

    /** The calling thread's memo takes its slot if the slot is free. */
    void offer(HotSequence hot) {
        int i = index(hot.threadId);
        if (slots[i] == null) {
            SLOTS.compareAndSet(slots, i, null, hot);
        }
    }

    /**
     * Frees the slot of {@code hot}, whose thread has ended, if it holds one. Uses the id the memo was
     * made with, not the thread's {@code getId()}: the reaper runs no application code.
     */
    void remove(HotSequence hot) {
        SLOTS.compareAndSet(slots, index(hot.threadId), hot, null);
    }

    /** Whether {@code hot} holds its slot. */
    boolean holds(HotSequence hot) {
        return slots[index(hot.threadId)] == hot;
    }
}
