package io.jtrace.agent.trackevent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import io.jtrace.shm.writer.SmbFullPolicy;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The count of lost events that JMX, jcmd and the CLI show while a session runs and that its trace ends with. */
class LiveLostEventCountTest {
    @TempDir
    Path dir;

    private static ActiveSession session(Sequence... pooled) {
        return new ActiveSession(0, 1, false, true, null, null, new SequencePool(pooled, 0), null);
    }

    @Test
    void aWriterClosingWhileTheOpenWritersAreScannedIsNotCountedTwice() {
        ActiveSession session = session();
        long lost = session.lostEvents(() -> {
            // The scan found the writer open with 100 drops; it closes before the scan ends.
            session.writerClosed(100);
            return 100;
        });
        assertEquals(100, lost);
        assertEquals(100, session.lostEvents(() -> 0), "after the close, from the closed writers' sum");
    }

    @Test
    void aWriterThatLeftTheOpenSetBeforeItsCountJoinedTheClosedSumDoesNotMakeTheFigureGoDown() {
        ActiveSession session = session();
        assertEquals(100, session.lostEvents(() -> 100), "a live thread's writer dropped 100 events");
        assertEquals(100, session.lostEvents(() -> 0), "its thread ended: its writer left the open set, its count "
                + "has not joined the closed sum yet");
        session.writerClosed(100);
        assertEquals(100, session.lostEvents(() -> 0), "its count joined the closed sum");
        session.writerClosed(50);
        assertEquals(150, session.lostEvents(() -> 0), "a later loss shows");
        session.lostWithoutWriter();
        assertEquals(151, session.lostEvents(() -> 0), "and an event lost before reaching a writer");
    }

    @Test
    void theFinalFigureWaitsOutAWriterCloseThatIsHalfDone() {
        ActiveSession session = session();
        session.closeBegins(); // the writer left the open set; its 7 drops are not in the closed sum yet
        boolean[] finished = {false};
        long lost = session.settledLostEvents(() -> {
            if (!finished[0]) {
                finished[0] = true; // the close ends while the first reading scans the open writers
                session.writerClosed(7);
                session.closeEnds();
            }
            return 0;
        });
        assertEquals(7, lost, "read again once no close was in flight");
    }

    /**
     * A shared writer whose holder is still mid-event when the session stops is left open for the service
     * to scrape; the events it dropped before still count, and its dropped descriptors do not.
     */
    @Test
    void aSharedWriterStillHeldAtStopKeepsTheEventsItDroppedInTheCount() throws Exception {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, 4096, 4096);
        SharedMemoryAbi abi = new SharedMemoryAbi(smb);
        try (ChunkCommitter committer = new ChunkCommitter(abi.pageCount(), new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                request.release();
            }

            @Override
            public void flushComplete(long requestId) {}
        }, 1, "idle-commit")) {
            ChunkArbiter arbiter = new ChunkArbiter(abi, committer);
            while (arbiter.acquireChunk(1) >= 0) {
                Thread.onSpinWait(); // another writer's chunks fill the SMB
            }
            TraceWriter writer = new TraceWriter(arbiter, 1, SmbFullPolicy.DROP);
            Sequence shared = new Sequence(writer, 0);
            ActiveSession session = session(shared);
            for (int i = 0; i < 3; i++) {
                writer.beginPacket().varint(8, i);
                writer.endPacket();
            }
            writer.describing(true);
            writer.beginPacket().varint(8, 9);
            writer.endPacket();
            writer.describing(false);
            shared.tryClaim(); // its holder, mid-event, never comes back

            assertEquals(1, session.pool().close(1_000_000, session), "left to the service");
            assertEquals(3, session.lostEvents(() -> 0));
        } finally {
            smb.unlink();
        }
    }
}
