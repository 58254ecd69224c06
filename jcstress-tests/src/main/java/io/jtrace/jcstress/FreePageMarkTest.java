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
}
