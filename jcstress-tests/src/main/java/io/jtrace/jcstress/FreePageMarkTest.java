package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.abi.InProcessSmb;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ReportedFrees;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZ_Result;

/**
 * The free-page marks ({@code FreePageHints}): a writer clears the mark of a page it found full and
 * reads the page again; the service frees a chunk and then marks its page. Whatever the interleaving,
 * a chunk freed and reported is never hidden: the racing writer gets it, or the page ends marked and the
 * next writer gets it.
 */
public class FreePageMarkTest {
    private FreePageMarkTest() {}

    /** One page, one chunk (a whole-page layout) held by the service, BEING_READ. */
    static final int WHOLE_PAGE = 3000;

    /**
     * Ordering proven: the service's free (CAS on the page header) comes before its mark in program
     * order, the writer's clear before its re-read; all four are volatile or atomic, so in their one
     * total order either the re-read follows the free (the writer sees the chunk free and takes it or
     * marks the page back) or the mark follows the clear (the page ends marked). The writer's failed
     * scan also records the free epoch it read first; the report moves the epoch after marking, so the
     * next writer scans again.
     *
     * <p>r1: the racing writer got the chunk; r2: a writer after both got it; r3: the page ended marked.
     */
    @JCStressTest
    @Outcome(id = {"true, false, true", "true, false, false"}, expect = ACCEPTABLE, desc = "The racing writer took the freed chunk.")
    @Outcome(id = {"false, true, true", "false, true, false"}, expect = ACCEPTABLE, desc = "The next writer took it.")
    @Outcome(id = {"false, false, true", "false, false, false"}, expect = FORBIDDEN, desc = "The freed chunk is hidden from every writer.")
    @Outcome(expect = FORBIDDEN, desc = "The chunk was handed out twice.")
    @State
    public static class FreeAgainstAWriterFindingThePageFull {
        private final SharedMemoryAbi abi = InProcessSmb.abi(1);
        private final ChunkArbiter arbiter = InProcessSmb.arbiter(abi);

        public FreeAgainstAWriterFindingThePageFull() {
            abi.tryPartitionPage(0, PageLayout.DIV1);
            abi.tryAcquireChunkForWriting(0, PageLayout.DIV1);
            abi.releaseChunkAsComplete(0, 0);
            abi.tryAcquireChunkForReading(0, 0);
        }

        @Actor
        public void service() {
            ReportedFrees.freeAndReport(arbiter, 0, 0);
        }

        @Actor
        public void writer(ZZZ_Result r) {
            r.r1 = arbiter.acquireChunk(WHOLE_PAGE) >= 0;
        }

        @Arbiter
        public void nextWriter(ZZZ_Result r) {
            r.r3 = ReportedFrees.isMarked(arbiter, 0);
            r.r2 = arbiter.acquireChunk(WHOLE_PAGE) >= 0;
        }
    }

    /** A chunk the default layout (4 per page) serves. */
    static final int SMALL = 12;
    /** A chunk only a page of 2 chunks serves. */
    static final int HALF_PAGE = 1500;

    /**
     * Two writers of different sizes race to lay out the one free page; the loser must not take the
     * page for full and clear its mark, or the winner's next chunk, taken while the mark is clear, finds
     * no marked page and gives up with three of the page's chunks free. The loser tells "laid out for
     * another size" from "full" by reading the page header again after its failed take (both are volatile
     * accesses of the same word, so it sees the winner's partition CAS that made its own fail).
     *
     * <p>r1, r2: the small writer's first and second chunk; r3: the half-page writer's chunk.
     */
    @JCStressTest
    @Outcome(id = "true, true, false", expect = ACCEPTABLE, desc = "The page was laid out small: the small writer got both chunks.")
    @Outcome(id = "false, false, true", expect = ACCEPTABLE, desc = "The page was laid out in halves: the half-page writer got one.")
    @Outcome(expect = FORBIDDEN, desc = "A writer gave up while the page had a free chunk of its size.")
    @State
    public static class LayoutRaceAgainstTheWinnersNextChunk {
        private final SharedMemoryAbi abi = InProcessSmb.abi(1);
        private final ChunkArbiter arbiter = InProcessSmb.arbiter(abi);

        @Actor
        public void smallWriter(ZZZ_Result r) {
            r.r1 = arbiter.acquireChunk(SMALL) >= 0;
            r.r2 = arbiter.acquireChunk(SMALL) >= 0;
        }

        @Actor
        public void halfPageWriter(ZZZ_Result r) {
            r.r3 = arbiter.acquireChunk(HALF_PAGE) >= 0;
        }
    }
}
