package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Claiming pooled sequences when every one is held: wait out a descheduled holder, but not forever. */
class SequencePoolTest {
    private static Sequence[] pooled(int n) {
        Sequence[] slots = new Sequence[n];
        for (int i = 0; i < n; i++) {
            slots[i] = new Sequence(null, 0);
        }
        return slots;
    }

    @Test
    void aClaimWaitsForAHolderThatWasDescheduledMidEventInsteadOfLosingTheEvent() throws Exception {
        Sequence[] slots = pooled(2);
        SequencePool pool = new SequencePool(slots, TimeUnit.SECONDS.toNanos(60));
        assertEquals(0, pool.claim(0));
        assertEquals(1, pool.claim(0));
        CompletableFuture<Integer> claimed = new CompletableFuture<>();
        Thread claimer = new Thread(() -> claimed.complete(pool.claim(0)));
        claimer.start();
        // The claimer has spun and yielded through its busy passes and parks between passes now: the
        // holder "comes back" far later than a busy loop of passes lasts.
        while (claimer.getState() != Thread.State.TIMED_WAITING && !claimed.isDone()) {
            Thread.onSpinWait();
        }
        Thread.sleep(50);
        slots[1].release();
        assertEquals(1, claimed.get(60, TimeUnit.SECONDS), "the claimer takes the sequence released while it waited");
    }

    @Test
    void aClaimGivesUpWhenEverySequenceStaysHeldForItsWholeWait() {
        Sequence[] slots = pooled(2);
        SequencePool pool = new SequencePool(slots, TimeUnit.MILLISECONDS.toNanos(1));
        pool.claim(0);
        pool.claim(1);
        long started = System.nanoTime();
        assertEquals(-1, pool.claim(0), "counted lost by the caller, the application not stalled for longer");
        assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(1), "it waited out its whole wait first");
    }

    @Test
    void thePoolHasTwoSequencesPerThreadThatCanRunAtOnceCarriersIncluded() {
        assertEquals(4, SequencePool.sizeFor(2, 0));
        assertEquals(8, SequencePool.sizeFor(4, 2));
        assertEquals(32, SequencePool.sizeFor(2, 16), "16 carriers on 2 CPUs");
        assertEquals(32, SequencePool.sizeFor(64, 0));
        assertTrue(SequencePool.defaultSize() >= 4);
    }
}
