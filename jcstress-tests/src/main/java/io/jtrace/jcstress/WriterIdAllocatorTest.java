package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.writer.WriterIdAllocator;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Protocol (4), the writer id allocator: one bit per id, set and cleared by CAS on its 64-bit word.
 * Ordering proven: a CAS that fails because another id of the word changed re-reads the word and
 * retries, so concurrent allocations and frees never hand out an id twice nor lose one.
 */
public class WriterIdAllocatorTest {
    private WriterIdAllocatorTest() {}

    /** Two writers created at once get different ids (the first two, in either order). */
    @JCStressTest
    @Outcome(id = {"1, 2", "2, 1"}, expect = ACCEPTABLE, desc = "Two different ids.")
    @Outcome(expect = FORBIDDEN, desc = "One id handed out twice, or an id skipped.")
    @State
    public static class TwoAllocations {
        private final WriterIdAllocator ids = new WriterIdAllocator();

        @Actor
        public void writer1(II_Result r) {
            r.r1 = ids.allocate();
        }

        @Actor
        public void writer2(II_Result r) {
            r.r2 = ids.allocate();
        }
    }

    /**
     * Every id in use; one is freed while a new writer asks for one. The new writer gets the freed id
     * or, if it came first, none, and then the id is still there for the next one (the arbiter): a freed
     * id can be had again, exactly once. r1: what the concurrent allocation got; r2: what an allocation
     * after both got.
     */
    @JCStressTest
    @Outcome(id = {"12345, -1", "-1, 12345"}, expect = ACCEPTABLE, desc = "The freed id was handed out once.")
    @Outcome(expect = FORBIDDEN, desc = "The freed id was lost or handed out twice.")
    @State
    public static class FreeAndAllocateWhenFull {
        static final int FREED = 12345;
        private final WriterIdAllocator ids = new WriterIdAllocator();

        public FreeAndAllocateWhenFull() {
            for (int i = 0; i < ChunkHeader.MAX_WRITER_ID; i++) {
                ids.allocate();
            }
        }

        @Actor
        public void closingWriter() {
            ids.free(FREED);
        }

        @Actor
        public void newWriter(II_Result r) {
            r.r1 = ids.allocate();
        }

        @Arbiter
        public void nextWriter(II_Result r) {
            r.r2 = ids.allocate();
        }
    }

    /**
     * Two ids of the same 64-bit word freed at once: both CASes take effect. The arbiter frees each id
     * again, which throws for an id already free: true means the concurrent free was not lost.
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "Both ids are free.")
    @Outcome(expect = FORBIDDEN, desc = "A free was lost: the id stays taken forever.")
    @State
    public static class TwoFreesInOneWord {
        private final WriterIdAllocator ids = new WriterIdAllocator();

        public TwoFreesInOneWord() {
            ids.allocate();
            ids.allocate();
        }

        @Actor
        public void closingWriter1() {
            ids.free(1);
        }

        @Actor
        public void closingWriter2() {
            ids.free(2);
        }

        @Arbiter
        public void check(ZZ_Result r) {
            r.r1 = isFree(1);
            r.r2 = isFree(2);
        }

        private boolean isFree(int id) {
            try {
                ids.free(id);
                return false;
            } catch (IllegalStateException alreadyFree) {
                return true;
            }
        }
    }
}
