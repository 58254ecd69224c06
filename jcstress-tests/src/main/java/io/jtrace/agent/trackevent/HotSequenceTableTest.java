package io.jtrace.agent.trackevent;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;
import org.openjdk.jcstress.infra.results.ZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Protocol (6), the hot memo table ({@link HotSequenceTable}): a slot goes from empty to a memo by CAS
 * ({@code offer}, the memo's own thread) and from that memo back to empty by CAS ({@code remove}, the
 * reaper); a lookup reads the slot plainly and trusts a memo only if its final {@code thread} is the
 * caller. In this package to reach the package-private classes. The memos name threads that never run:
 * only their identity and id matter.
 */
public class HotSequenceTableTest {
    private HotSequenceTableTest() {}

    /** A memo for slot 5 of a thread that is not the caller. */
    private static HotSequence memoInSlot5() {
        return new HotSequence(new Thread(() -> { }), 5);
    }

    /**
     * One thread offers another thread's memo to the slot the reader looks in; the reader looks. Ordering
     * proven: a racy read of a memo published by CAS shows its final field set (JLS 17.5), so the
     * identity check holds whatever the reader sees: the slot empty, or a memo that is not its own.
     */
    @JCStressTest
    @Outcome(id = "0", expect = ACCEPTABLE, desc = "The reader found no memo of its own.")
    @Outcome(expect = FORBIDDEN, desc = "The reader was handed another thread's memo.")
    @State
    public static class ReaderNeverGetsAnotherThreadsMemo {
        private final HotSequenceTable table = new HotSequenceTable();
        private final Thread reader = new Thread(() -> { });
        private final HotSequence other;

        @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+
        public ReaderNeverGetsAnotherThreadsMemo() {
            other = new HotSequence(new Thread(() -> { }), reader.getId());
        }

        @Actor
        public void offerer() {
            table.offer(other);
        }

        @Actor
        public void lookup(I_Result r) {
            r.r1 = table.find(reader) == null ? 0 : 1;
        }
    }

    /** Two memos offered to one free slot at once: exactly one takes it. */
    @JCStressTest
    @Outcome(id = {"true, false", "false, true"}, expect = ACCEPTABLE, desc = "Exactly one memo holds the slot.")
    @Outcome(expect = FORBIDDEN, desc = "Both or neither.")
    @State
    public static class TwoOffers {
        private final HotSequenceTable table = new HotSequenceTable();
        private final HotSequence first = memoInSlot5();
        private final HotSequence second = memoInSlot5();

        @Actor
        public void offerFirst() {
            table.offer(first);
        }

        @Actor
        public void offerSecond() {
            table.offer(second);
        }

        @Arbiter
        public void arbiter(ZZ_Result r) {
            r.r1 = table.holds(first);
            r.r2 = table.holds(second);
        }
    }

    /**
     * The reaper frees an ended thread's slot while a live thread offers its memo there: the live memo
     * takes the slot or not (it saw the ended one), but the ended one never stays, and once the live one
     * holds the slot it keeps it. r1: the live memo held the slot right after its offer; r2, r3: the
     * live and the ended memo hold it at the end.
     */
    @JCStressTest
    @Outcome(id = "true, true, false", expect = ACCEPTABLE, desc = "Freed, then taken by the live thread.")
    @Outcome(id = "false, false, false", expect = ACCEPTABLE, desc = "The offer saw the ended memo and gave up; then it was freed.")
    @Outcome(expect = FORBIDDEN, desc = "The ended memo stayed, or the live one lost the slot it had taken.")
    @State
    public static class RemoveVersusOffer {
        private final HotSequenceTable table = new HotSequenceTable();
        private final HotSequence ended = memoInSlot5();
        private final HotSequence live = memoInSlot5();

        public RemoveVersusOffer() {
            table.offer(ended);
        }

        @Actor
        public void reaper() {
            table.remove(ended);
        }

        @Actor
        public void liveThread(ZZZ_Result r) {
            table.offer(live);
            r.r1 = table.holds(live);
        }

        @Arbiter
        public void arbiter(ZZZ_Result r) {
            r.r2 = table.holds(live);
            r.r3 = table.holds(ended);
        }
    }

    /**
     * The reaper removes an ended thread's memo that never held the slot (it lost it to a colliding
     * thread), while that live thread takes the free slot. Ordering proven: remove is a CAS against the
     * ended memo itself, so it never clears the live thread's memo, whichever comes first. r1: the live
     * memo held the slot right after its offer; r2: it holds it at the end.
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "The live memo took the slot and kept it.")
    @Outcome(expect = FORBIDDEN, desc = "The live memo did not get the free slot, or the remove of another memo cleared it.")
    @State
    public static class RemoveOfAMemoThatNeverHeldTheSlot {
        private final HotSequenceTable table = new HotSequenceTable();
        private final HotSequence endedElsewhere = memoInSlot5();
        private final HotSequence live = memoInSlot5();

        @Actor
        public void reaper() {
            table.remove(endedElsewhere);
        }

        @Actor
        public void liveThread(ZZ_Result r) {
            table.offer(live);
            r.r1 = table.holds(live);
        }

        @Arbiter
        public void arbiter(ZZ_Result r) {
            r.r2 = table.holds(live);
        }
    }
}
