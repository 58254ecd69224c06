package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.api.Category;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import io.jtrace.shm.writer.SmbFullPolicy;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain event ({@link Sequence#tryPlainEvent}) while the SMB is full: dropped and counted right
 * there when the general route could only drop it too, left to the general route otherwise. The commit
 * thread is never started, so nothing frees a chunk or moves the free epoch unless a test does.
 */
class PlainEventWhileSmbFullTest {
    private static final Category CATEGORY = Category.of("plain-while-full");
    private static final int BEGIN = TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE;
    private static final int END = TrackEvent.Type.TYPE_SLICE_END_VALUE;

    @TempDir
    Path dir;

    private SharedMemoryBuffer smb;
    private ChunkCommitter committer;
    private ChunkArbiter arbiter;

    @BeforeEach
    void smbWithAnIdleCommitThread() throws Exception {
        smb = SharedMemoryBuffer.create(dir, 4 * 4096, 4096);
        SharedMemoryAbi abi = new SharedMemoryAbi(smb);
        committer = new ChunkCommitter(abi.pageCount(), new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                request.release();
            }

            @Override
            public void flushComplete(long requestId) {}
        }, 1, "idle-commit");
        arbiter = new ChunkArbiter(abi, committer);
    }

    @AfterEach
    void close() throws Exception {
        committer.close();
        smb.unlink();
    }

    @Test
    void aDropWriterWithoutAChunkDropsAndCountsTheEventAndEveryOneAfterItWhileTheSmbIsKnownFull() {
        Sequence sequence = readySequenceWithTheSmbFull(SmbFullPolicy.DROP);
        TraceWriter writer = sequence.writer;

        assertTrue(sequence.tryPlainEvent(0, BEGIN, CATEGORY, "slice", 100), "handled: dropped");
        assertEquals(1, writer.droppedPackets());
        assertTrue(sequence.needsRestart(0), "the loss makes the next event restart the sequence");
        assertTrue(sequence.tryPlainEvent(0, END, null, null, 200), "dropped before any restart is tried");
        assertEquals(2, writer.droppedPackets());
        for (int i = 0; i < 100; i++) {
            assertTrue(sequence.tryPlainEvent(0, BEGIN, CATEGORY, "slice", 300 + 2 * i));
            assertTrue(sequence.tryPlainEvent(0, END, null, null, 301 + 2 * i));
        }
        assertEquals(202, writer.droppedPackets(), "every event while the SMB stays full, each counted once");
        assertEquals(0, writer.packetsWritten());
    }

    @Test
    void aStallingWriterLeavesTheEventToTheGeneralRouteWhichMayWait() {
        Sequence sequence = readySequenceWithTheSmbFull(SmbFullPolicy.STALL_THEN_DROP);

        assertFalse(sequence.tryPlainEvent(0, BEGIN, CATEGORY, "slice", 100));
        assertEquals(0, sequence.writer.droppedPackets(), "nothing dropped or counted here");
    }

    @Test
    void onceAChunkMayHaveBeenFreedTheEventAfterALossGoesToTheGeneralRouteToRestartTheSequence() {
        Sequence sequence = readySequenceWithTheSmbFull(SmbFullPolicy.DROP);
        assertTrue(sequence.tryPlainEvent(0, BEGIN, CATEGORY, "slice", 100));

        committer.notifyChunksFreed();

        assertFalse(sequence.tryPlainEvent(0, END, null, null, 200), "the general route restarts the sequence");
        assertEquals(1, sequence.writer.droppedPackets());
    }

    @Test
    void withAChunkFreeTheEventIsWrittenNotDropped() {
        TraceWriter writer = new TraceWriter(arbiter, 1, SmbFullPolicy.DROP);
        Sequence sequence = readySequence(writer);

        assertTrue(sequence.tryPlainEvent(0, BEGIN, CATEGORY, "slice", 100));
        assertTrue(sequence.tryPlainEvent(0, END, null, null, 200));
        assertEquals(0, writer.droppedPackets());
        assertEquals(2, writer.packetsWritten());
    }

    /** A sequence of generation 0 with the name and category interned and last looked up. */
    private static Sequence readySequence(TraceWriter writer) {
        Sequence sequence = new Sequence(writer, 7);
        sequence.clearIncrementalState(0, 0);
        sequence.internName("slice");
        sequence.internCategory(CATEGORY);
        assertEquals(1, sequence.nameIid("slice"));
        assertEquals(1, sequence.categoryIid(CATEGORY));
        return sequence;
    }

    /** A ready sequence of a writer with {@code policy}, then every chunk taken by others. */
    private Sequence readySequenceWithTheSmbFull(SmbFullPolicy policy) {
        Sequence sequence = readySequence(new TraceWriter(arbiter, 1, policy));
        fillTheSmb();
        return sequence;
    }

    /** Other writers take every chunk until one of them finds none (its packet dropped). */
    private void fillTheSmb() {
        for (int i = 0; i < 1024; i++) {
            TraceWriter filler = new TraceWriter(arbiter, 1, SmbFullPolicy.DROP);
            filler.beginPacket().varint(8, 1);
            filler.endPacket();
            if (filler.droppedPackets() > 0) {
                assertTrue(arbiter.knownFull());
                return;
            }
        }
        throw new AssertionError("the SMB never filled up");
    }
}
