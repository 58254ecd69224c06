package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.abi.InProcessSmb;
import io.jtrace.shm.writer.ChunkArbiter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZI_Result;
import org.openjdk.jcstress.infra.results.ZI_Result;

/**
 * The bound on page-sized chunks writers hold ({@link ChunkArbiter#tryHoldPageChunk}): a CAS loop on
 * one counter that never goes past the limit. On 4 pages the limit is 1. Ordering proven: a CAS that
 * fails because another writer took a place re-reads the count and checks the limit again, so two
 * writers never both take the last place, and a place given back can be taken again.
 */
public class PageChunkLimitTest {
    private PageChunkLimitTest() {}

    /** Two writers that filled a chunk ask for the last place at once: one gets it. r3: places held after. */
    @JCStressTest
    @Outcome(id = {"true, false, 1", "false, true, 1"}, expect = ACCEPTABLE, desc = "One writer got the last place.")
    @Outcome(expect = FORBIDDEN, desc = "Both got it (the limit broken), or neither did (a place lost).")
    @State
    public static class TwoWritersForTheLastPlace {
        private final ChunkArbiter arbiter = InProcessSmb.arbiter(InProcessSmb.abi(4));

        @Actor
        public void writer1(ZZI_Result r) {
            r.r1 = arbiter.tryHoldPageChunk();
        }

        @Actor
        public void writer2(ZZI_Result r) {
            r.r2 = arbiter.tryHoldPageChunk();
        }

        @Arbiter
        public void held(ZZI_Result r) {
            r.r3 = arbiter.pageChunksHeld();
        }
    }

    /**
     * The only place is held; its writer hands its chunk over while another asks for a place. The other
     * gets it if it came after the hand-over, else not; either way the count is right after both.
     */
    @JCStressTest
    @Outcome(id = {"true, 1", "false, 0"}, expect = ACCEPTABLE, desc = "The place was taken again after it was given back, or asked for before.")
    @Outcome(expect = FORBIDDEN, desc = "A place counted twice or lost.")
    @State
    public static class GiveBackWhileAnotherAsks {
        private final ChunkArbiter arbiter = InProcessSmb.arbiter(InProcessSmb.abi(4));

        public GiveBackWhileAnotherAsks() {
            if (!arbiter.tryHoldPageChunk()) {
                throw new IllegalStateException("the first place");
            }
        }

        @Actor
        public void holder() {
            arbiter.pageChunkReleased();
        }

        @Actor
        public void asker(ZI_Result r) {
            r.r1 = arbiter.tryHoldPageChunk();
        }

        @Arbiter
        public void held(ZI_Result r) {
            r.r2 = arbiter.pageChunksHeld();
        }
    }
}
