package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.InProcessSmb;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.writer.ChunkArbiter;
import java.nio.ByteBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Protocol (2), the chunk state machine: every transition is one CAS on the page's bitmap
 * ({@code SharedMemoryAbi}), so no two parties ever own one chunk.
 */
public class ChunkOwnershipTest {
    private ChunkOwnershipTest() {}

    /** Larger than half a 4 KiB page: only the one-chunk layout (DIV1) fits it. */
    static final int WHOLE_PAGE = 3000;

    /**
     * FREE → BEING_WRITTEN between two writers of one SMB whose single page must first be partitioned
     * and holds a single chunk: the partition CAS and the acquire CAS let exactly one writer have it.
     * Ordering proven: the CAS is atomic on the whole bitmap word, and a writer that lost a race re-reads
     * the bitmap (volatile) before trying again, so it never takes a chunk another writer holds.
     */
    @JCStressTest
    @Outcome(id = {"true, false", "false, true"}, expect = ACCEPTABLE, desc = "Exactly one writer got the chunk.")
    @Outcome(id = "true, true", expect = FORBIDDEN, desc = "Two writers own one chunk.")
    @Outcome(expect = FORBIDDEN, desc = "The free chunk was lost.")
    @State
    public static class TwoWritersOneChunk {
        private final ChunkArbiter arbiter = InProcessSmb.arbiter(InProcessSmb.abi(1));

        @Actor
        public void writer1(ZZ_Result r) {
            r.r1 = arbiter.acquireChunk(WHOLE_PAGE) >= 0;
        }

        @Actor
        public void writer2(ZZ_Result r) {
            r.r2 = arbiter.acquireChunk(WHOLE_PAGE) >= 0;
        }
    }

    /**
     * Two writers on a page of four chunks (the default layout) each get a chunk, never the same one:
     * when both CAS the same bitmap, one fails, re-reads it and takes the next free chunk.
     */
    @JCStressTest
    @Outcome(id = {"0, 1", "1, 0"}, expect = ACCEPTABLE, desc = "Each writer got its own chunk.")
    @Outcome(expect = FORBIDDEN, desc = "The same chunk twice, or a writer got none.")
    @State
    public static class TwoWritersTwoChunks {
        private final ChunkArbiter arbiter = InProcessSmb.arbiter(InProcessSmb.abi(1));

        @Actor
        public void writer1(II_Result r) {
            r.r1 = ChunkArbiter.indexOf(arbiter.acquireChunk(64));
        }

        @Actor
        public void writer2(II_Result r) {
            r.r2 = ChunkArbiter.indexOf(arbiter.acquireChunk(64));
        }
    }

    /**
     * COMPLETE → BEING_READ → FREE against a writer that wants the chunk (the page's only one): the
     * service copies the chunk between its two CASes; the writer, if it gets the chunk, overwrites it.
     * Ordering proven: the service's reads of the chunk happen-before its CAS BEING_READ → FREE, which
     * the writer's CAS FREE → BEING_WRITTEN reads, so the service never sees the next writer's bytes.
     *
     * <p>r1: the byte the service read from the chunk ('A' = 65 the first use's, 'B' = 66 the next
     * writer's); r2: 1 when the writer got the chunk.
     */
    @JCStressTest
    @Outcome(id = {"65, 0", "65, 1"}, expect = ACCEPTABLE, desc = "The service read its chunk; the writer got it only after the free, or not.")
    @Outcome(id = {"66, 0", "66, 1"}, expect = FORBIDDEN, desc = "The service read bytes of the writer that reused the chunk.")
    @Outcome(expect = FORBIDDEN, desc = "The service could not take the COMPLETE chunk.")
    @State
    public static class ServiceFreesWriterReuses {
        private final SharedMemoryAbi abi = InProcessSmb.abi(1);
        private final ChunkArbiter arbiter = InProcessSmb.arbiter(abi);
        private final ByteBuffer smb = abi.smb().buffer();
        private final int payload = abi.chunkOffset(0, PageLayout.DIV1, 0) + ChunkHeader.SIZE;

        public ServiceFreesWriterReuses() {
            abi.tryPartitionPage(0, PageLayout.DIV1);
            abi.tryAcquireChunkForWriting(0, PageLayout.DIV1);
            abi.writeChunkHeader(payload - ChunkHeader.SIZE, 0, 1, ChunkHeader.packetsWord(1, 0));
            smb.put(payload, (byte) 'A');
            abi.releaseChunkAsComplete(0, 0);
        }

        @Actor
        public void service(II_Result r) {
            if (abi.tryAcquireChunkForReading(0, 0)) {
                r.r1 = smb.get(payload);
                abi.releaseChunkAsFree(0, 0);
            } else {
                r.r1 = -1;
            }
        }

        @Actor
        public void writer(II_Result r) {
            if (arbiter.acquireChunk(WHOLE_PAGE) >= 0) {
                smb.put(payload, (byte) 'B');
                r.r2 = 1;
            }
        }
    }

    /**
     * COMPLETE → BEING_READ twice at once (a service is one thread, but the state machine must not rely
     * on it): one CAS wins, and the chunk ends BEING_READ, not freed or lost. The arbiter checks the state.
     */
    @JCStressTest
    @Outcome(id = {"true, false", "false, true"}, expect = ACCEPTABLE, desc = "Exactly one reader took the chunk.")
    @Outcome(expect = FORBIDDEN, desc = "Both or neither took it, or it did not end BEING_READ.")
    @State
    public static class TwoReaders {
        private final SharedMemoryAbi abi = InProcessSmb.abi(1);

        public TwoReaders() {
            abi.tryPartitionPage(0, PageLayout.DIV4);
            abi.tryAcquireChunkForWriting(0, PageLayout.DIV4);
            abi.releaseChunkAsComplete(0, 0);
        }

        @Actor
        public void reader1(ZZ_Result r) {
            r.r1 = abi.tryAcquireChunkForReading(0, 0);
        }

        @Actor
        public void reader2(ZZ_Result r) {
            r.r2 = abi.tryAcquireChunkForReading(0, 0);
        }

        @Arbiter
        public void state(ZZ_Result r) {
            if (abi.chunkState(0, 0) != ChunkState.BEING_READ) {
                r.r1 = r.r2 = false;
            }
        }
    }
}
