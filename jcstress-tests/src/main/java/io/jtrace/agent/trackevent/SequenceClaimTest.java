package io.jtrace.agent.trackevent;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Protocol (5), pooled track_event sequences: {@link Sequence#tryClaim} is a CAS of its claim flag
 * 0 → 1 and {@link Sequence#release} a release store of 0. In this package to reach the package-private
 * classes. The sequences have no writer: claiming never touches it.
 */
public class SequenceClaimTest {
    private SequenceClaimTest() {}

    /** Two threads claim a free sequence at once: the CAS lets exactly one have it (mutual exclusion). */
    @JCStressTest
    @Outcome(id = {"true, false", "false, true"}, expect = ACCEPTABLE, desc = "Exactly one thread holds the sequence.")
    @Outcome(expect = FORBIDDEN, desc = "Both hold it, or neither got a free sequence.")
    @State
    public static class TwoClaimers {
        private final Sequence sequence = new Sequence(null, 0);

        @Actor
        public void thread1(ZZ_Result r) {
            r.r1 = sequence.tryClaim();
        }

        @Actor
        public void thread2(ZZ_Result r) {
            r.r2 = sequence.tryClaim();
        }
    }

    /**
     * The holder interns a name and sets the sequence's generation (plain writes to the sequence and its
     * map), then releases it; another thread claims it. Ordering proven: the holder's writes happen-before
     * its release store, which the next claimer's CAS reads, so a thread that gets the sequence sees
     * everything its previous holder wrote. r1, r2: the name's interned id and the generation the
     * claimer read, or -1, -1 when the sequence was still held.
     */
    @JCStressTest
    @Outcome(id = "-1, -1", expect = ACCEPTABLE, desc = "Still held: the claim failed.")
    @Outcome(id = "1, 7", expect = ACCEPTABLE, desc = "Claimed after the release, and saw all the holder wrote.")
    @Outcome(expect = FORBIDDEN, desc = "Claimed, but saw a stale sequence.")
    @State
    public static class Handover {
        private final Sequence sequence = new Sequence(null, 0);

        public Handover() {
            sequence.tryClaim();
        }

        @Actor
        public void holder() {
            sequence.internName("handled");
            sequence.generation = 7;
            sequence.release();
        }

        @Actor
        public void nextClaimer(II_Result r) {
            if (sequence.tryClaim()) {
                r.r1 = sequence.nameIid("handled");
                r.r2 = sequence.generation;
            } else {
                r.r1 = -1;
                r.r2 = -1;
            }
        }
    }

    /**
     * Two threads each take the only sequence of a pool through {@link SequencePool#claim} (which retries
     * while it is busy), add one to a plain counter on it, and release it. Mutual exclusion and the
     * release → CAS handover together mean no increment is lost. r1, r2: whether each thread got the
     * sequence; r3: the counter after both.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 2", expect = ACCEPTABLE, desc = "Both got it in turn; both increments kept.")
    @Outcome(id = {"1, 0, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "One gave up while the other held it (bounded retries).")
    @Outcome(expect = FORBIDDEN, desc = "An increment was lost: two holders at once, or a stale read.")
    @State
    public static class PoolRoundTrip {
        private final SequencePool pool = new SequencePool(new Sequence[] {new Sequence(null, 0)});

        @Actor
        public void thread1(III_Result r) {
            r.r1 = increment();
        }

        @Actor
        public void thread2(III_Result r) {
            r.r2 = increment();
        }

        @Arbiter
        public void counter(III_Result r) {
            r.r3 = (int) pool.get(0).drops;
        }

        private int increment() {
            int slot = pool.claim(0);
            if (slot < 0) {
                return 0;
            }
            Sequence sequence = pool.get(slot);
            sequence.drops++;
            sequence.release();
            return 1;
        }
    }
}
