package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A thread finds its own memo in the table and never another thread's, even when their ids collide. */
class HotSequenceTableTest {
    private final HotSequenceTable table = new HotSequenceTable();

    @Test
    void aThreadFindsTheMemoItOffered() {
        HotSequence mine = memoOf(Thread.currentThread());
        assertNull(table.find(Thread.currentThread()));
        table.offer(mine);
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void aThreadWhoseIdCollidesFindsNothingAndDoesNotEvictTheHolder() throws Exception {
        HotSequence mine = memoOf(Thread.currentThread());
        table.offer(mine);
        Thread other = collidingThread();
        HotSequence theirs = memoOf(other);
        table.offer(theirs);
        assertNull(table.find(other), "the slot is held by a live thread's memo, which stays");
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void aSlotFreedByRemoveGoesToTheNextThreadThatOffers() throws Exception {
        Thread ended = collidingThread();
        HotSequence endedMemo = memoOf(ended);
        table.offer(endedMemo);
        HotSequence mine = memoOf(Thread.currentThread());
        table.offer(mine);
        assertNull(table.find(Thread.currentThread()));

        table.remove(endedMemo);
        table.offer(mine);
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void removingAMemoThatHoldsNoSlotLeavesTheHolderInPlace() throws Exception {
        HotSequence mine = memoOf(Thread.currentThread());
        table.offer(mine);
        table.remove(memoOf(collidingThread()));
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void aThreadWhoseIdCollidesNeverGetsTheMemoInItsSlot() throws Exception {
        HotSequence mine = memoOf(Thread.currentThread());
        table.offer(mine);
        AtomicReference<HotSequence> seenByOther = new AtomicReference<>(mine);
        Thread reader = collidingThread(() -> seenByOther.set(table.find(Thread.currentThread())));
        reader.start();
        reader.join();
        assertNull(seenByOther.get(), "the slot holds another thread's memo");
    }

    @Test
    void aThreadWhoseIdChangesStillFindsOnlyItsOwnMemoAndIsRemovedFromTheSlotItTook() throws Exception {
        @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+
        AtomicLong id = new AtomicLong(Thread.currentThread().getId());
        Thread shifty = new Thread(() -> { }) {
            @Override
            @SuppressWarnings("deprecation")
            public long getId() {
                return id.get();
            }
        };
        HotSequence memo = memoOf(shifty);
        table.offer(memo);
        assertSame(memo, table.find(shifty));
        id.incrementAndGet();
        assertNull(table.find(shifty), "another slot: not found, nothing else returned");
        table.remove(memo);
        assertFalse(table.holds(memo), "removed from the slot it was offered to");
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+
    private static HotSequence memoOf(Thread thread) {
        return new HotSequence(thread, thread.getId());
    }

    /** A thread (not started) whose id maps to the calling thread's slot. */
    private static Thread collidingThread() {
        return collidingThread(() -> { });
    }

    /** A thread (not started) running {@code task} whose id maps to the calling thread's slot. */
    private static Thread collidingThread(Runnable task) {
        return sameSlotAs(Thread.currentThread(), task);
    }

    /** A thread (not started) running {@code task} whose id maps to the same table slot as {@code other}'s. */
    @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+
    static Thread sameSlotAs(Thread other, Runnable task) {
        long slot = other.getId() & (HotSequenceTable.SIZE - 1);
        for (int i = 0; i < 4 * HotSequenceTable.SIZE; i++) {
            Thread t = new Thread(task);
            if ((t.getId() & (HotSequenceTable.SIZE - 1)) == slot) {
                return t;
            }
        }
        throw new AssertionError("no thread id fell in slot " + slot + " in " + 4 * HotSequenceTable.SIZE + " threads");
    }
}
