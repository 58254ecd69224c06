package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.service.buffer.PromotionRig;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZZ_Result;

/**
 * A writer's promotion ({@code Promotion}): the writer takes it (CAS GRANTED to IN_USE) to append a
 * chunk, the service takes it back (CAS GRANTED to REVOKED) or holds it (GRANTED to IN_USE) to take a
 * chunk itself. Whoever wins the CAS owns the promotion's counts and chunk id until its release store;
 * the loser sees that store with acquire. Whatever the interleaving, a chunk is appended by the writer
 * at most once, only while the writer owns the promotion, is freed exactly when appended, and is
 * counted once at the settlement.
 */
public class PromotionStateTest {
    private PromotionStateTest() {}

    /**
     * r1: the writer appended its chunk; r2: the service revoked; r3: the file holds the chunk and the
     * chunk is free; r4: the settlement counts exactly the chunks appended.
     */
    @JCStressTest
    @Outcome(id = "true, true, true, true", expect = ACCEPTABLE, desc = "Appended, then revoked.")
    @Outcome(id = "true, false, true, true", expect = ACCEPTABLE, desc = "Revoke found the writer appending.")
    @Outcome(id = "false, true, true, true", expect = ACCEPTABLE, desc = "Revoked first: the chunk goes through the service.")
    @Outcome(expect = FORBIDDEN, desc = "A chunk appended without the promotion, lost, or counted wrong.")
    @State
    public static class AppendAgainstRevoke {
        private final PromotionRig rig = new PromotionRig();

        @Actor
        public void writer(ZZZZ_Result r) {
            r.r1 = rig.writerReleasesItsChunk();
        }

        @Actor
        public void service(ZZZZ_Result r) {
            r.r2 = rig.serviceRevokes();
        }

        @Arbiter
        public void check(ZZZZ_Result r) {
            boolean appended = rig.fileHoldsThePacket();
            r.r3 = appended == r.r1 && rig.chunkIsFree() == appended;
            // Revoked (or, if the revoke lost to the writer, taken back now that it is done): settle.
            r.r4 = (r.r2 || rig.serviceRevokes()) && rig.settledChunks() == (appended ? 1 : 0);
        }
    }

    /**
     * The service holds the promotion for the writer's chunk 0 (to take that chunk itself, as when the
     * writer queued it) while the writer offers the same chunk: only one of them gets it. A hold taken
     * after the writer appended the chunk finds the promotion expecting chunk 1 and holds nothing.
     *
     * <p>r1: the writer appended the chunk; r2: the service holds the promotion for it; r3: the file holds
     * the chunk, and the chunk is free, exactly when the writer appended it.
     */
    @JCStressTest
    @Outcome(id = {"true, false, true", "false, true, true"}, expect = ACCEPTABLE, desc = "One of them has the chunk.")
    @Outcome(expect = FORBIDDEN, desc = "Both or neither had the chunk, or it was appended without the promotion.")
    @State
    public static class AppendAgainstHold {
        private final PromotionRig rig = new PromotionRig();

        @Actor
        public void writer(ZZZ_Result r) {
            r.r1 = rig.writerReleasesItsChunk();
        }

        @Actor
        public void service(ZZZ_Result r) {
            r.r2 = rig.serviceHoldsForTheChunk();
        }

        @Arbiter
        public void check(ZZZ_Result r) {
            boolean appended = rig.fileHoldsThePacket();
            r.r3 = appended == r.r1 && rig.chunkIsFree() == appended;
        }
    }
}
