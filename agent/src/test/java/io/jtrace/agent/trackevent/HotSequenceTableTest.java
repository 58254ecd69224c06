package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A thread finds its own memo in the table and never another thread's, even when their ids collide. */
class HotSequenceTableTest {
    private final HotSequenceTable table = new HotSequenceTable();

    @Test
    void aThreadFindsTheMemoItOffered() {
        HotSequence mine = new HotSequence(Thread.currentThread());
        assertNull(table.find(Thread.currentThread()));
        table.offer(mine);
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void aThreadWhoseIdCollidesFindsNothingAndDoesNotEvictTheHolder() throws Exception {
        HotSequence mine = new HotSequence(Thread.currentThread());
        table.offer(mine);
        Thread other = collidingThread();
        HotSequence theirs = new HotSequence(other);
        table.offer(theirs);
        assertNull(table.find(other), "the slot is held by a live thread's memo, which stays");
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void aSlotFreedByTheReaperGoesToTheNextThreadThatOffers() throws Exception {
        Thread ended = collidingThread();
        HotSequence endedMemo = new HotSequence(ended);
        table.offer(endedMemo);
        HotSequence mine = new HotSequence(Thread.currentThread());
        table.offer(mine);
        assertNull(table.find(Thread.currentThread()));

        table.remove(endedMemo);
        table.offer(mine);
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void removingAMemoThatHoldsNoSlotLeavesTheHolderInPlace() throws Exception {
        HotSequence mine = new HotSequence(Thread.currentThread());
        table.offer(mine);
        table.remove(new HotSequence(collidingThread()));
        assertSame(mine, table.find(Thread.currentThread()));
    }

    @Test
    void aMemoIsFoundOnlyByItsOwnThreadFromAnyThread() throws Exception {
        HotSequence mine = new HotSequence(Thread.currentThread());
        table.offer(mine);
        AtomicReference<HotSequence> seenByOther = new AtomicReference<>(mine);
        Thread reader = new Thread(() -> seenByOther.set(table.find(Thread.currentThread())));
        reader.start();
        reader.join();
        assertNull(seenByOther.get());
    }

    /** A thread (not started) whose id maps to the calling thread's slot. */
    @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+
    private static Thread collidingThread() {
        long slot = Thread.currentThread().getId() & (HotSequenceTable.SIZE - 1);
        for (int i = 0; i < 4 * HotSequenceTable.SIZE; i++) {
            Thread t = new Thread(() -> { });
            if ((t.getId() & (HotSequenceTable.SIZE - 1)) == slot) {
                return t;
            }
        }
        throw new AssertionError("no thread id collided in " + 4 * HotSequenceTable.SIZE + " threads");
    }
}
